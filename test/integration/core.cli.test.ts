// `npm run dev-core`: the reference core as a person starts it: prints where it listens and how to use it, takes
// fault flags, and stops cleanly on Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { IS_WINDOWS, baseChildEnv } from '../helpers/platform.js';

const CLI = join(REPO_ROOT, 'core/cli.ts');

describe('dev-core CLI', () => {
  it.skipIf(IS_WINDOWS)('starts on a free port, applies a fault flag, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--interval', '1', '--fault', 'health=5xx:1'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 20_000;
      while (!out.includes('Ctrl-C to stop.')) {
        if (Date.now() > deadline) throw new Error(`dev-core did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const base = /AGENTSTACK_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      expect(base).toBeDefined();
      expect(out).toContain('sign in as: dev@agentstack.test / agentstack-dev');
      expect((await fetch(`${base}/mcp/health`)).status).toBeGreaterThanOrEqual(500);
      expect(await (await fetch(`${base}/mcp/health`)).json()).toEqual({ ok: true, mcp_surface_tools: 1 });
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('stopped (SIGINT)');
      await expect(fetch(`${base}/mcp/health`)).rejects.toThrow();
    } finally {
      // A failed assertion must not leave a server running after the test.
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);

  it('refuses a malformed fault flag with exit 2', () => {
    const result = devCore(['--fault', 'nowhere=5xx']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bad --fault nowhere=5xx');
  }, 30_000);

  it('an unknown flag: one line saying which, a pointer to --help, exit 2, no stack trace', () => {
    const result = devCore(['--bogus']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^dev-core: Unknown option '--bogus'.*\nRun with --help for usage\.\n$/);
    expect(result.stderr).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
    expect(result.stdout).toBe('');
  }, 30_000);

  it('--second-tool accepts only same-page or page2', () => {
    const result = devCore(['--second-tool', 'bogus']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('dev-core: --second-tool must be same-page or page2 (got "bogus")\nRun with --help for usage.\n');
    expect(result.stdout).toBe('');
  }, 30_000);

  it('--expire-sessions, --connect-stub and --rest-tools-drift are accepted and listed in the faults line', async () => {
    const { out, stop, kill } = await startDevCore(['--expire-sessions', '--connect-stub', '--rest-tools-drift']);
    try {
      expect(out).toContain('faults:     {"expireSessions":true,"connectStub":true,"restToolsDrift":true}');
      const base = /AGENTSTACK_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(out)!;
      expect((await fetch(`${base[1]}/mcp/.well-known/oauth-authorize`)).status).toBe(200);
      expect(await stop()).toBe(0);
    } finally {
      kill();
    }
  }, 30_000);

  it('--help lists the fault flags', () => {
    const result = devCore(['--help']);
    expect(result.status).toBe(0);
    for (const flag of ['--expire-sessions', '--connect-stub', '--rest-tools-drift']) expect(result.stdout).toContain(flag);
  }, 30_000);
});

describe('dev-core for scripts', () => {
  it.skipIf(IS_WINDOWS)('--auto-approve: device-code signs in with no browser; a busy port is one line and exit 1', async () => {
    const core = await startDevCore(['--auto-approve', '--interval', '1']);
    const dir = tempDir('agentstack-dev-core-');
    try {
      const base = /AGENTSTACK_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(core.out)![1]!;
      const env = { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: base };
      const signIn = spawnSync(process.execPath, [join(REPO_ROOT, 'hooks/scripts/device-code.mjs'), '--no-browser'], { env, encoding: 'utf8', timeout: 30_000 });
      expect(signIn.status, signIn.stderr).toBe(0);
      expect(signIn.stdout + signIn.stderr).toContain('Signed in to AgentStack');
      const busy = devCore(['--port', new URL(base).port]);
      expect(busy.status).toBe(1);
      expect(busy.stderr.trim()).toBe(`dev-core: port ${new URL(base).port} on 127.0.0.1 is in use; pick another with --port N, or leave --port out for a free one.`);
    } finally {
      core.kill();
      dir.cleanup();
    }
  }, 60_000);
});

function devCore(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 });
}

/** Starts dev-core with `args`, waits for its banner; `stop()` sends SIGINT and resolves with the exit code. */
async function startDevCore(args: string[]): Promise<{ out: string; stop: () => Promise<number | null>; kill: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 20_000;
  while (!out.includes('Ctrl-C to stop.')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`dev-core did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // `kill` is for finally blocks: a failed assertion must not leave the server running.
  return { out, stop: () => (child.kill('SIGINT'), exited), kill: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}
