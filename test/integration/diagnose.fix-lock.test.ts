/**
 * `diagnose-local --fix` removes only a stale device lock: the lock of a sign-in that is running (a real
 * device-code.mjs waiting for approval) is kept byte for byte, and that sign-in still completes.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');

let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  tmp = tempDir('agentstack-fixlock-');
});
afterAll(async () => {
  await core?.close();
  tmp?.cleanup();
});

function diagnose(dir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DIAGNOSE, ...args], {
    env: { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: core.baseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('diagnose-local --fix and a running sign-in', () => {
  it('keeps the live device lock, reports the sign-in as running, and the sign-in then completes', async () => {
    const dir = join(tmp.path, 'cursor');
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir });
    try {
      const code = await run.waitFor('device_code');
      const lockPath = join(dir, 'agentstack-device.lock');
      expect(existsSync(lockPath)).toBe(true);
      const before = readFileSync(lockPath, 'utf8');

      const fixed = await diagnose(dir, ['--fix', '--json']);
      const report = JSON.parse(fixed.stdout) as { checks: Array<{ id: string; status: string; summary: string }>; changes: string[] };
      expect(report.changes.join('\n')).not.toMatch(/device lock/);
      expect(report.checks.find((c) => c.id === 'device.lock')).toMatchObject({ status: 'PASS', summary: expect.stringContaining('a sign-in is running') });
      expect(readFileSync(lockPath, 'utf8')).toBe(before);

      await core.approve(String(code.user_code));
      const done = await run.done;
      expect(done.code).toBe(0);
      expect(bearerOf(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')))).toBeTruthy();
      expect(existsSync(lockPath)).toBe(false);
    } finally {
      run.child.kill();
    }
  }, 45_000);
});
