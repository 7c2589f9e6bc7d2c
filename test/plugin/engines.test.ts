/**
 * Every committed bundle on the other Node versions people run (22 and 24, pinned official binaries from the npm
 * registry, installed by `node bench/engines.mjs install`; .ci/run does it): an engine difference cannot ship unseen.
 * Each hook answers exactly as it does on this machine's Node, twice (the second run goes through the compile cache
 * the first one wrote). Skipped, with a note, where the binaries are not installed; in CI (CI set) that is a failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module shared with the bench
import { engines } from '../../bench/engines.mjs';
// @ts-expect-error plain ES module shared with the build script
import { BUNDLES } from '../../build/bundles.mjs';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

type Engine = { version: string; major: number; path: string | null };
const all = (engines as () => Engine[])();
const scripts = (BUNDLES as Array<{ out: string }>).map((b) => b.out);
const missing = all.filter((e) => !e.path);
// CI installs the binaries (.ci/run): there a missing engine is a failure, never a skip.
if (missing.length && process.env.CI) {
  throw new Error(`engines.test must run in CI: Node ${missing.map((e) => e.version).join(', ')} not installed (run: node bench/engines.mjs install)`);
}
if (missing.length) {
  console.warn(`engines.test: Node ${missing.map((e) => e.version).join(', ')} not installed; those tests are skipped (run: node bench/engines.mjs install)`);
}

const execute = (action: string) => JSON.stringify({
  hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ id: '1', action }] }),
  url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack',
});
const other = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'read_file', tool_input: '{}', url: 'https://files.example.com/mcp' });
const session = JSON.stringify({ hook_event_name: 'sessionStart', session_id: 's1', workspace_roots: ['/tmp/ws'] });

describe.each(all)('Node $version', (engine) => {
  const dir = tempDir('agentstack-engine-');
  writeSnapshot(cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path }).capabilities, bigSnapshot(50));
  afterAll(() => dir.cleanup());
  beforeEach((ctx) => { if (!engine.path) ctx.skip(`Node ${engine.version} is not in .node-cache (node bench/engines.mjs install)`); });
  const run = (node: string, script: string, args: string[], input = '') => spawnSync(node, [join(REPO_ROOT, script), ...args], {
    input, encoding: 'utf8', timeout: 30_000,
    env: { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' },
  });

  it.each(scripts)('%s --help exits 0 with its usage', (script) => {
    const r = run(engine.path!, script, ['--help']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: /);
  });

  it.each([
    ['pre-mcp, another server', 'hooks/scripts/pre-mcp-cap-check.cjs', [], other],
    ['pre-mcp, an action the snapshot lacks', 'hooks/scripts/pre-mcp-cap-check.cjs', [], execute('nope.nothing')],
    ['pre-mcp, a known action', 'hooks/scripts/pre-mcp-cap-check.cjs', [], execute('projects.list')],
    ['session-start, not signed in', 'hooks/scripts/session-start.cjs', ['--from-hook'], session],
  ] as const)('%s: the same answer as on this Node, twice', (_, script, args, input) => {
    const expected = run(process.execPath, script, [...args], input);
    expect(expected.status).toBe(0);
    for (let i = 0; i < 2; i++) {
      const r = run(engine.path!, script, [...args], input);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
      expect(r.stderr).toBe(expected.stderr);
    }
    if (script.includes('session')) expect(JSON.parse(expected.stdout).additional_context).toMatch(/AgentStack/);
    if (input.includes('nope.nothing')) expect(JSON.parse(expected.stdout).permission).toBe('deny');
  });

  it.skipIf(engine.major < 22)('keeps its compile cache in the Cursor dir, one folder per plugin version', () => {
    const root = join(dir.path, 'agentstack-compile-cache');
    expect(existsSync(root)).toBe(true);
    expect(readdirSync(root)).toEqual([expect.stringMatching(/^\d+\.\d+\.\d+/)]);
  });
});
