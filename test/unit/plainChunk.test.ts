/**
 * lib/platform/plainChunk.ts with real files: a chunk runs as CommonJS (module, exports, require, __filename,
 * __dirname) once per process, names its file in stack traces, and a broken one fails loudly. Where Node refuses code
 * generation from strings, the hook that loads its chunks this way still answers (require() loads them).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPlainChunk } from '../../lib/platform/plainChunk.js';
import { tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT } from '../helpers/sessionStart.js';

const dir = tempDir('agentstack-plain-');
afterAll(() => dir.cleanup());
const requireHere = createRequire(import.meta.url);

function chunk(name: string, source: string): string {
  const file = join(dir.path, name);
  writeFileSync(file, source);
  return file;
}

const runs = () => (globalThis as { __plainRuns?: number }).__plainRuns ?? 0;

describe('loading a chunk plain', () => {
  it('runs it as CommonJS, with the caller\'s require, once per process', () => {
    const file = chunk('one.cjs', [
      '"use strict";',
      'globalThis.__plainRuns = (globalThis.__plainRuns ?? 0) + 1;',
      'module.exports = { file: __filename, dir: __dirname, same: exports === module.exports, sep: require("node:path").sep, strict: (function () { return this === undefined; })() };',
      '// a last line that is a comment',
    ].join('\n'));
    const before = runs();
    const exports = loadPlainChunk(file, dir.path, requireHere);
    expect(exports).toEqual({ file, dir: dir.path, same: true, sep: '/', strict: true });
    expect(loadPlainChunk(file, dir.path, requireHere)).toBe(exports);
    expect(runs()).toBe(before + 1);
  });

  it('names its file in a stack trace', () => {
    const file = chunk('throws.cjs', 'module.exports = { fail() { throw new Error("from the chunk"); } };');
    const { fail } = loadPlainChunk(file, dir.path, requireHere) as { fail: () => never };
    let stack = '';
    try { fail(); } catch (error) { stack = (error as Error).stack ?? ''; }
    expect(stack).toContain(file);
  });

  it('throws on a chunk that is not JavaScript, and caches nothing', () => {
    const file = chunk('broken.cjs', 'module.exports = {');
    expect(() => loadPlainChunk(file, dir.path, requireHere)).toThrow(SyntaxError);
    writeFileSync(file, 'module.exports = { fixed: true };');
    expect(loadPlainChunk(file, dir.path, requireHere)).toEqual({ fixed: true });
  });
});

describe('the pre-MCP hook, where Node refuses code generation from strings', () => {
  it('loads its check chunk by require() and gives the same answer', () => {
    const home = join(dir.path, 'home');
    mkdirSync(home, { recursive: true });
    const run = (flags: string[], input: object) => {
      const r = spawnSync(process.execPath, [...flags, PRE_MCP_SCRIPT], {
        input: JSON.stringify(input), encoding: 'utf8', timeout: 20_000,
        env: { PATH: process.env.PATH, HOME: home, AGENTSTACK_CURSOR_DIR: join(home, 'cursor'), AGENTSTACK_DISABLE_AUTO_LOGIN: '1' },
      });
      expect(r.status).toBe(0);
      expect(r.stderr).not.toMatch(/unexpected failure/);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const execute = { hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: '{"steps":[{"id":"1","action":"x.y"}]}', mcp_server_name: 'user-agentstack' };
    const answer = run([], execute);
    expect(answer.agent_message).toMatch(/snapshot/);
    expect(run(['--disallow-code-generation-from-strings'], execute)).toEqual(answer);
  });
});
