// `npm run dev-core`: the reference core as a person starts it: prints where it listens and how to use it, takes
// fault flags, and stops cleanly on Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

const CLI = join(REPO_ROOT, 'core/cli.ts');

describe('dev-core CLI', () => {
  it('starts on a free port, applies a fault flag, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--interval', '1', '--fault', 'health=5xx:1'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
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
  }, 30_000);

  it('refuses a malformed fault flag with exit 2', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, '--fault', 'nowhere=5xx'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bad --fault nowhere=5xx');
  }, 30_000);
});
