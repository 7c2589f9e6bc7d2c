// `npm run demo` is the README's first command: it must reach its successful end from a clean state.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

describe('npm run demo', () => {
  it('walks every step to a successful end, never printing a whole token', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'demo/demo.ts')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      // An explicit environment: nothing of the caller's (a proxy, a base URL, a Cursor dir) may steer the demo.
      env: { PATH: process.env.PATH, HOME: tmpdir(), ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) },
    });
    expect(result.stderr).not.toMatch(/Demo failed/);
    expect(result.status).toBe(0);
    for (const step of ['1. Sign in', '2. What landed', '3. Cursor starts', '4. Before each MCP', '5. Prove the connection']) {
      expect(result.stdout).toContain(step);
    }
    expect(result.stdout).toMatch(/Done in [\d.]+ s: every step worked\./);
    expect(result.stdout).toMatch(/unknown action \(projects\.lst\): deny/);
    // A JWT has three base64url parts; none may appear whole in the narration.
    expect(result.stdout).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/);
  }, 90_000);
});
