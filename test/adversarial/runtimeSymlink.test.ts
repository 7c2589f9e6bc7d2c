/**
 * refresh-cursor-runtime --fix writes only inside ~/.cursor/plugins. A cached copy whose folder is a symlink to a
 * place outside (`hooks` -> /elsewhere) must not lead the repair there: mkdir and the write would follow the link
 * before a check on the final path could refuse it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { baseChildEnv } from '../helpers/platform.js';

const SCRIPT = join(REPO_ROOT, 'scripts/refresh-cursor-runtime.mjs');
const CACHE = 'plugins/cache/agentstack-marketplace/agentstack/0123abcd';

let cursor: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;
beforeEach(() => {
  cursor = tempDir('agentstack-runtime-link-');
  outside = tempDir('agentstack-outside-');
});
afterEach(() => {
  cursor.cleanup();
  outside.cleanup();
});

const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], {
  encoding: 'utf8', timeout: 30_000, env: { ...baseChildEnv(), HOME: cursor.path, AGENTSTACK_CURSOR_DIR: cursor.path },
});

/** Every file under `dir`, relative. */
const filesUnder = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();

describe.skipIf(process.platform === 'win32')('issue: refresh-cursor-runtime --fix followed a symlinked folder out of ~/.cursor/plugins', () => {
  it.each([
    // The case: the link's target exists, the folder below it does not; the containment check on the final
    // path could not resolve it, so it passed, and mkdir followed the link.
    ['hooks -> outside (holding hooks.json, no scripts/)', 'hooks', (o: string) => { cpSync(join(REPO_ROOT, 'hooks/hooks.json'), join(o, 'hooks.json')); return o; }],
    ['hooks/scripts -> outside', 'hooks/scripts', (o: string) => o],
    ['hooks/scripts -> outside/deep (dangling)', 'hooks/scripts', (o: string) => join(o, 'deep')],
  ])('%s: nothing is written outside, and nothing in the copy either', (_name, linked, prepare) => {
    const cache = join(cursor.path, CACHE);
    mkdirSync(cache, { recursive: true });
    copyPlugin(cache);
    rmSync(join(cache, linked), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    mkdirSync(join(cache, linked, '..'), { recursive: true });
    symlinkSync(prepare(outside.path), join(cache, linked));
    writeFileSync(join(cache, 'README.md'), 'stale');
    const before = filesUnder(outside.path);

    const r = run('--fix', '--json');
    expect(filesUnder(outside.path)).toEqual(before);
    expect(existsSync(join(outside.path, 'deep'))).toBe(false);
    const report = JSON.parse(r.stdout);
    const repair = report.checks.find((c: { id: string }) => c.id === 'copy.repair');
    expect(repair?.status).toBe('FAIL');
    expect(repair.summary).toMatch(/symlink/);
    // refused before anything was written: the stale file in the same copy is still stale
    expect(report.changes).toEqual([]);
    expect(readFileSync(join(cache, 'README.md'), 'utf8')).toBe('stale');
    expect(r.status).not.toBe(0);
  });
});
