import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/repo.js';
import { applyBearer, normalizeMcpConfig } from '../../lib/agentstack/mcpJson/entry.js';
import { readMcpConfigFile, updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { findJsonError } from '../../lib/platform/text/jsonPosition.js';
import { PRIVATE_MODE, SHARED_MODE } from '../helpers/platform.js';

let dir: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  dir = tempDir();
  path = join(dir.path, 'mcp.json');
});
afterEach(() => dir.cleanup());

describe('mcp.json file layer', () => {
  it('refuses malformed JSON with the position, never quoting the file, and leaves it byte-identical', async () => {
    const text = '{\n  "mcpServers": {\n    "agentstack": {"headers": {"Authorization": "Bearer SECRET-TOKEN-1"}},\n  }\n}';
    writeFileSync(path, text, { mode: 0o644 });
    const error = await updateMcpConfigFile(path, (c) => normalizeMcpConfig(c)).catch((e) => e);
    expect(error.code).toBe('malformed_file');
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/line 4, column 3/);
    expect(error.message).not.toContain('SECRET');
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(statSync(path).mode & 0o777).toBe(SHARED_MODE);
  });

  it.each(['[1, 2]', '"text"', '{"mcpServers": []}', '{"mcpServers": "x"}'])('refuses %s as not an object', (text) => {
    writeFileSync(path, text);
    expect(() => readMcpConfigFile(path)).toThrow(/left unchanged/);
  });

  it('treats a missing or empty file as {}', () => {
    expect(readMcpConfigFile(path)).toEqual({ config: {}, text: null });
    writeFileSync(path, '  \n');
    expect(readMcpConfigFile(path).config).toEqual({});
  });

  it('adds the entry to a one-line file on that line, mode 0600, other servers byte for byte', async () => {
    const original = { theme: 'x', mcpServers: { github: { command: 'gh', args: ['mcp'], env: { A: '1' } }, zed: { url: 'https://z/mcp' } } };
    writeFileSync(path, JSON.stringify(original), { mode: 0o644 });
    const result = await updateMcpConfigFile(path, (c) => applyBearer(c, { token: 'tok', baseUrl: 'https://agentstack.tech' }));
    expect(result.changed).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(`${JSON.stringify(original).slice(0, -2)},"agentstack":{"type":"http","url":"https://agentstack.tech/mcp","headers":{"Authorization":"Bearer tok"}}}}`);
    const parsed = JSON.parse(text);
    expect(parsed.mcpServers.github).toEqual(original.mcpServers.github);
    expect(Object.keys(parsed.mcpServers)).toEqual(['github', 'zed', 'agentstack']);
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
  });

  it('writes nothing on a no-op (a 4-space file stays as it is) but tightens a wide mode', async () => {
    const text = JSON.stringify({ mcpServers: { agentstack: { type: 'http', url: 'https://agentstack.tech/mcp' } } }, null, 4);
    writeFileSync(path, text);
    chmodSync(path, 0o644);
    const before = statSync(path).mtimeMs;
    const result = await updateMcpConfigFile(path, (c) => normalizeMcpConfig(c));
    expect(result.changed).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(statSync(path).mtimeMs).toBe(before);
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
  });

  it('concurrent writers under the lock never lose each other', async () => {
    writeFileSync(path, '{"mcpServers": {}}');
    await Promise.all(Array.from({ length: 8 }, (_, i) => updateMcpConfigFile(path, (c) => {
      const servers = { ...(c.mcpServers as object), [`s${i}`]: { url: `https://s${i}/mcp` } };
      return { config: { ...c, mcpServers: servers }, changed: true };
    })));
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).mcpServers).sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7']);
  });
});

describe('findJsonError', () => {
  it.each([
    ['{"a": 1}', null],
    ['{"a":}', [1, 6]],
    ['{\n  "a": 1,\n}', [3, 1]],
    ['', [1, 1]],
    ['[1, 2', [1, 6]],
    ['{"a" 1}', [1, 6]],
    ['{"a": tru}', [1, 7]],
    ['{"a": 1} x', [1, 10]],
    ['"\\x"', [1, 3]],
  ])('%j', (text, expected) => {
    const found = findJsonError(text);
    expect(found && [found.line, found.column]).toEqual(expected);
    expect(found === null).toBe((() => { try { JSON.parse(text); return true; } catch { return false; } })());
  });
});
