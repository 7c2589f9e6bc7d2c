/**
 * The closing note of a vitest run (test/helpers/notRunReporter.ts) names every block that did not run and why: a
 * block skipped with notRunWhen (once, however many tests it holds), a test that skipped itself as it ran, and a test
 * skipped with no reason, as such; never one that ran or one whose block had nothing missing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

const run = (args: string[] = []) => spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--configLoader', 'runner', '--config', 'test/fixtures/notRun/vitest.config.ts', ...args], {
  cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, CI: '' }, timeout: 60_000,
});

it('names each block that did not run with its reason, and a reasonless skip as such', () => {
  const r = run();
  expect(r.status, r.stderr).toBe(0);
  const note = r.stderr.slice(r.stderr.indexOf('Not run on this machine'));
  expect(note.trim().split('\n')).toEqual([
    'Not run on this machine (3):',
    '  - test/fixtures/notRun/blocks.fixture.ts › a block that needs a tool (2 tests): the tool is not installed',
    '  - test/fixtures/notRun/blocks.fixture.ts › finds out as it runs: the pipe cannot be made here',
    '  - test/fixtures/notRun/blocks.fixture.ts › skipped with no reason: skipped, no reason given',
  ]);
});

it('narrowed by a name: only the blocks with a reason', () => {
  const r = run(['-t', 'runs']);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toContain('a block that needs a tool (2 tests): the tool is not installed');
  expect(r.stderr).not.toContain('no reason given');
});
