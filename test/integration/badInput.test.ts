/**
 * Bad input to every script ends in one clear line and the right exit code, never a stack trace: a folder to audit
 * that is missing or a file, a Cursor dir that is a file, a read-only Cursor dir at sign-in, and config's small
 * wording and exit-code rules.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { baseChildEnv, IS_WINDOWS } from '../helpers/platform.js';
import { copyPlugin, makeReadable } from '../helpers/pluginCopy.js';
import { REPO_ROOT } from '../helpers/repo.js';

const fixture = useCoreAndCursorDirs('agentstack-badinput-');
const STACK = /\n\s+at |node:internal|^\s*\^/m;

function run(script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, script), ...args], { env: { ...baseChildEnv(), ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('audit-cursor-plugin.mjs with a folder that is not one', () => {
  it('a missing folder and a file: exit 2, one line naming it, a JSON error object with --json', async () => {
    const file = join(fixture.cursorDir(), 'plain.txt');
    writeFileSync(file, 'x');
    const missing = await run('scripts/audit-cursor-plugin.mjs', ['/nonexistent-agentstack-folder']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^audit-cursor-plugin: \/nonexistent-agentstack-folder does not exist/);
    expect(missing.stderr).not.toMatch(STACK);
    const onFile = await run('scripts/audit-cursor-plugin.mjs', [file, '--json']);
    expect(onFile.code).toBe(2);
    expect(JSON.parse(onFile.stdout)).toEqual({ error: 'usage', message: expect.stringContaining(`${file} is a file`) });
    expect(onFile.stderr).not.toMatch(STACK);
  });
});

describe('AGENTSTACK_CURSOR_DIR pointing at a file', () => {
  it.each([
    ['scripts/diagnose-local.mjs', []],
    ['scripts/diagnose-local.mjs', ['--json']],
    ['scripts/config.mjs', ['set', 'auto-login', 'false']],
    ['scripts/config.mjs', ['list']],
    ['hooks/scripts/device-code.mjs', ['--status']],
    ['hooks/scripts/device-code.mjs', ['--status', '--json']],
  ] as const)('%s %j: exit 1, one line that says it is a file (and under --json one JSON error object), no EEXIST, no stack', async (script, args) => {
    const home = fixture.cursorDir();
    const file = join(home, 'not-a-folder');
    writeFileSync(file, 'x');
    const r = await run(script, [...args], { HOME: home, AGENTSTACK_CURSOR_DIR: file });
    const said = `AGENTSTACK_CURSOR_DIR (${file}) is a file, not a folder`;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(said);
    expect(r.stderr).not.toMatch(/EEXIST|ENOTDIR/);
    expect(r.stderr).not.toMatch(STACK);
    if ((args as readonly string[]).includes('--json')) expect(JSON.parse(r.stdout)).toEqual({ error: expect.any(String), message: expect.stringContaining(said) });
  });
});

describe('config.mjs wording and exit codes', () => {
  it('get of an unset key exits 1 with --json too; a refused value under --json is a JSON error object; no doubled punctuation', async () => {
    const dir = fixture.cursorDir();
    const env = { HOME: dir, AGENTSTACK_CURSOR_DIR: dir };
    const plain = await run('scripts/config.mjs', ['get', 'https-proxy'], env);
    const json = await run('scripts/config.mjs', ['get', 'https-proxy', '--json'], env);
    expect([plain.code, json.code]).toEqual([1, 1]);
    expect(JSON.parse(json.stdout)).toMatchObject({ key: 'https-proxy', value: null });
    const refused = await run('scripts/config.mjs', ['set', 'base-url', 'http://plain.example.com', '--json'], env);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: 'invalid_config', message: expect.stringMatching(/nothing was changed\.$/) });
    expect(refused.stderr).toMatch(/^config: /);
    expect(refused.stderr).not.toMatch(/\.;|\.\./);
    const badKey = await run('scripts/config.mjs', ['get', 'nope'], env);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).not.toContain('nothing was changed');
  });

  it('unset project when there is no pin does not claim to have removed one', async () => {
    const dir = fixture.cursorDir();
    const r = await run('scripts/config.mjs', ['unset', 'project'], { HOME: dir, AGENTSTACK_CURSOR_DIR: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Removed the project pin');
    expect(r.stdout).toContain('No project pin was set');
  });

  it('an unknown option reads as one balanced line; with --json stdout also has the JSON error object', async () => {
    const r = await run('scripts/config.mjs', ['--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('config: unknown option --bogus\nRun with --help for usage.\n');
    expect(r.stdout).toBe('');
    const json = await run('hooks/scripts/device-code.mjs', ['--json', '--scope-preset', 'nope']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: 'usage', message: expect.stringContaining('unknown --scope-preset') });
  });
});

describe('sign-in into a Cursor dir that cannot be written', () => {
  it.skipIf(IS_WINDOWS)('fails as a file problem saying "permission denied", not as a server error with EACCES', async () => {
    const dir = fixture.cursorDir();
    const cursor = join(dir, 'ro');
    mkdirSync(cursor);
    // root ignores permissions: run a copy of the plugin (readable, wherever the checkout is) as `nobody`, who owns the
    // Cursor dir, so read-only means read-only.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    let script: string | undefined;
    if (uid !== undefined) {
      chmodSync(fixture.tmp.path, 0o755);
      chmodSync(dir, 0o755);
      chownSync(dir, uid, uid);
      chownSync(cursor, uid, uid);
      const plugin = join(fixture.tmp.path, 'plugin-for-nobody');
      mkdirSync(plugin, { recursive: true });
      copyPlugin(plugin);
      makeReadable(plugin);
      script = join(plugin, 'hooks/scripts/device-code.mjs');
    }
    chmodSync(cursor, 0o500);
    try {
      const sign = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: cursor, env: { HOME: dir }, script, uid });
      const code = await sign.waitFor('device_code').catch(() => null);
      if (code) await fixture.core.approve(String(code.user_code));
      const done = await sign.done;
      expect(done.code).toBe(1);
      const last = JSON.parse(done.stdout.trim().split('\n').at(-1)!);
      expect(last.error, done.stdout + done.stderr).not.toBe('server');
      expect(last.message).toMatch(/permission denied/);
      expect(last.message).not.toMatch(/EACCES/);
    } finally {
      chmodSync(cursor, 0o700);
    }
  });
});

describe('verify-mcp-surface-e2e.mjs stopped with Ctrl-C', () => {
  it.skipIf(IS_WINDOWS)('still prints its one JSON document (a FAIL row saying it was cancelled) and exits 130', async () => {
    const { createServer } = await import('node:net');
    const held: Array<import('node:net').Socket> = [];
    const silent = createServer((socket) => { held.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    try {
      const dir = fixture.cursorDir();
      const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs'), '--base-url', `http://127.0.0.1:${port}`, '--json'], {
        env: { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir },
      });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
      // Interrupt once the probe is waiting on the silent server (its first request is under way).
      for (let i = 0; i < 100 && !held.length; i++) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(130);
      const doc = JSON.parse(stdout);
      expect(doc.ok).toBe(false);
      expect(doc.checks.at(-1)).toMatchObject({ id: 'verify.run', status: 'FAIL', summary: expect.stringContaining('cancelled') });
      expect(doc).toHaveProperty('base_url');
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});
