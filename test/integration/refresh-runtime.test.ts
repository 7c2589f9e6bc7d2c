/**
 * refresh-cursor-runtime on a fake ~/.cursor/plugins tree (AGENTSTACK_CURSOR_DIR): a stale cache copy is reported,
 * --fix makes it identical to this plugin (bytes and exec bits), --purge removes it; nothing outside is touched.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffFingerprints, fingerprint, shippedFiles } from '../../lib/agentstack/plugin/runtimeCopies.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { IS_WINDOWS, baseChildEnv } from '../helpers/platform.js';

const SCRIPT = join(REPO_ROOT, 'scripts/refresh-cursor-runtime.mjs');
const CACHE = 'plugins/cache/agentstack-marketplace/agentstack/0123abcd';

function makeStale(dir: string): void {
  const manifest = JSON.parse(readFileSync(join(dir, '.cursor-plugin/plugin.json'), 'utf8'));
  manifest.version = '0.4.2';
  writeFileSync(join(dir, '.cursor-plugin/plugin.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'assets/logo.png'), 'not the logo');
  rmSync(join(dir, 'commands/agentstack-diagnose.md'));
  chmodSync(join(dir, 'hooks/scripts/session-start.cjs'), 0o755);
}

describe('refresh-cursor-runtime', () => {
  const cursor = tempDir('agentstack-runtime-');
  const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], {
    encoding: 'utf8', timeout: 30_000, env: { ...baseChildEnv(), HOME: cursor.path, AGENTSTACK_CURSOR_DIR: cursor.path },
  });
  const cache = join(cursor.path, CACHE);
  const local = join(cursor.path, 'plugins/local/agentstack');
  const market = join(cursor.path, 'plugins/marketplaces/agentstack-marketplace/plugins/agentstack');
  const files = shippedFiles(REPO_ROOT);
  const differencesOf = (dir: string) => diffFingerprints(fingerprint(REPO_ROOT, files), fingerprint(dir, files));

  beforeAll(() => {
    for (const d of [cache, local, market]) { mkdirSync(d, { recursive: true }); copyPlugin(d); }
    makeStale(cache);
  });
  afterAll(() => cursor.cleanup());

  it('reports the stale cache copy (version and files) and the identical ones', () => {
    const r = run();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^WARN\s+copy\.cache\s+cache .*0123abcd: version 0\.4\.2 vs 0\.5\.0, 4 file\(s\) differ/m);
    expect(r.stdout).toMatch(/\.cursor-plugin\/plugin\.json changed/);
    expect(r.stdout).toMatch(/^PASS\s+copy\.local\s+local .*identical/m);
    expect(r.stdout).toMatch(/^PASS\s+copy\.marketplace/m);
    expect(differencesOf(cache).map((d) => `${d.path} ${d.reason}`).sort()).toEqual([
      '.cursor-plugin/plugin.json changed', 'assets/logo.png changed', 'commands/agentstack-diagnose.md missing', 'hooks/scripts/session-start.cjs mode',
    ]);
  });

  it('--fix makes the copy identical, bytes and modes, and says what it changed', () => {
    const r = run('--fix', '--json');
    const report = JSON.parse(r.stdout);
    expect(report.changes).toEqual([expect.stringMatching(/updated 4 file\(s\) in .*0123abcd/)]);
    expect(report.checks.every((c: { status: string }) => c.status === 'PASS')).toBe(true);
    expect(differencesOf(cache)).toEqual([]);
    expect(readFileSync(join(cache, 'assets/logo.png')).equals(readFileSync(join(REPO_ROOT, 'assets/logo.png')))).toBe(true);
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(join(cache, 'hooks/scripts/session-start.cjs'))).toBe(mode(join(REPO_ROOT, 'hooks/scripts/session-start.cjs')));
    expect(r.status).toBe(0);
  });

  it('--purge removes cached copies only', () => {
    makeStale(cache);
    const r = run('--purge');
    expect(r.stdout).toMatch(/removed cached copy .*0123abcd/);
    expect(existsSync(cache)).toBe(false);
    expect(existsSync(local)).toBe(true);
    expect(existsSync(market)).toBe(true);
    expect(r.status).toBe(0);
  });

  it.skipIf(IS_WINDOWS)('refuses to write through a copy that links outside ~/.cursor/plugins', () => {
    const outside = tempDir('agentstack-outside-');
    try {
      copyPlugin(outside.path);
      makeStale(outside.path);
      const before = readFileSync(join(outside.path, 'assets/logo.png'));
      mkdirSync(join(cursor.path, 'plugins/cache/evil/agentstack'), { recursive: true });
      symlinkSync(outside.path, join(cursor.path, 'plugins/cache/evil/agentstack/link'));
      const r = run('--fix');
      expect(r.stdout).toMatch(/^FAIL\s+copy\.repair\s+could not repair .*outside/m);
      expect(r.status).toBe(1);
      expect(readFileSync(join(outside.path, 'assets/logo.png')).equals(before)).toBe(true);
      expect(run('--purge').stdout).not.toMatch(/removed cached copy .*link/);
      expect(existsSync(join(outside.path, '.cursor-plugin/plugin.json'))).toBe(true);
    } finally {
      rmSync(join(cursor.path, 'plugins/cache/evil'), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
      outside.cleanup();
    }
  });
});
