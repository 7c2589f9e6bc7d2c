/**
 * Rewriting the agentstack entry must leave every other byte of mcp.json as it was. Parse-and-stringify does not:
 * `1e400` becomes `null`, a 20-digit integer is rounded, integer-like keys move first, duplicate keys collapse, and
 * the person's formatting is lost. Each case below writes a file JSON.parse reads with loss, changes the agentstack
 * entry, and compares the bytes outside that entry.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTree, findNodeAtLocation } from 'jsonc-parser';
import { tempDir } from '../helpers/repo.js';
import { sessionStart } from '../helpers/sessionStart.js';
import { applyBearer, normalizeMcpConfig } from '../../lib/agentstack/mcpJson/entry.js';
import { readMcpConfigFile, updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';

const BASE = 'https://agentstack.tech';
const OTHER = '"other": {"n": 1e400, "big": 12345678901234567890, "10": "ten", "2": "two", "dup": 1, "dup": 2, "f": 1.50}';

let dir: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  dir = tempDir();
  path = join(dir.path, 'mcp.json');
});
afterEach(() => dir.cleanup());

/** The text before and after the agentstack entry's value (the entry itself may change; nothing else may). */
function outsideEntry(text: string): [string, string] {
  const node = findNodeAtLocation(parseTree(text)!, ['mcpServers', 'agentstack'])!;
  return [text.slice(0, node.offset), text.slice(node.offset + node.length)];
}

describe('issue: rewriting mcp.json changed other servers', () => {
  const files = {
    'two-space, agentstack last': `{\n  "mcpServers": {\n    ${OTHER},\n    "agentstack": {"url": "${BASE}/mcp", "env": {"X": "1"}}\n  },\n  "zz": 1e400\n}\n`,
    'tabs, CRLF, agentstack first': `{\r\n\t"mcpServers": {\r\n\t\t"agentstack": {"type": "streamable-http", "url": "${BASE}/mcp", "command": "x"},\r\n\t\t${OTHER}\r\n\t}\r\n}`,
    'one line, BOM': `\uFEFF{"mcpServers":{${OTHER},"agentstack":{"url":"${BASE}/mcp","headers":{"X-Project-ID":"7","X-Extra":"y"}}},"10":[1e400]}`,
  };

  for (const [name, text] of Object.entries(files)) {
    it(`normalize (diagnose --fix, session start): ${name}`, async () => {
      writeFileSync(path, text);
      const result = await updateMcpConfigFile(path, (c) => normalizeMcpConfig(c));
      expect(result.changed).toBe(true);
      const after = readFileSync(path, 'utf8');
      expect(outsideEntry(after.replace(/^\uFEFF/, ''))).toEqual(outsideEntry(text.replace(/^\uFEFF/, '')));
      expect(after.charCodeAt(0)).not.toBe(0xfeff); // a BOM is dropped: a strict JSON reader refuses one
      const entry = (readMcpConfigFile(path).config.mcpServers as Record<string, Record<string, unknown>>).agentstack!;
      expect(Object.keys(entry).every((k) => ['type', 'url', 'headers'].includes(k))).toBe(true);
    });

    it(`sign-in (a new Bearer): ${name}`, async () => {
      writeFileSync(path, text);
      await updateMcpConfigFile(path, (c) => applyBearer(c, { token: 'tok.en.1', baseUrl: BASE }));
      const after = readFileSync(path, 'utf8');
      expect(outsideEntry(after.replace(/^\uFEFF/, ''))).toEqual(outsideEntry(text.replace(/^\uFEFF/, '')));
      expect(readMcpConfigFile(path).config.mcpServers).toMatchObject({ agentstack: { headers: { Authorization: 'Bearer tok.en.1' } } });
    });
  }

  it('repeated writes converge: five sign-ins leave the text one sign-in leaves (every format above)', async () => {
    for (const text of Object.values(files)) {
      writeFileSync(path, text);
      await updateMcpConfigFile(path, (c) => applyBearer(c, { token: 'tok.en.5', baseUrl: BASE }));
      const once = readFileSync(path, 'utf8');
      writeFileSync(path, text);
      for (let i = 1; i <= 5; i++) await updateMcpConfigFile(path, (c) => applyBearer(c, { token: `tok.en.${i}`, baseUrl: BASE }));
      expect(readFileSync(path, 'utf8')).toBe(once);
    }
  });

  it('a new agentstack entry is added after the others; every existing byte stays in order', async () => {
    const text = `{\n    "mcpServers": {\n        ${OTHER}\n    },\n    "2": 2\n}\n`;
    writeFileSync(path, text);
    await updateMcpConfigFile(path, (c) => applyBearer(c, { token: 'tok.en.2', baseUrl: BASE }));
    const after = readFileSync(path, 'utf8');
    expect(after).toContain(OTHER);
    expect(after.endsWith('    },\n    "2": 2\n}\n')).toBe(true);
    expect(after).toContain('\n        "agentstack": {\n            "type": "http"');
  });

  it('two "agentstack" entries (JSON.parse keeps the last) are refused, the file left byte for byte', async () => {
    const text = `{"mcpServers": {"agentstack": {"url": "${BASE}/mcp"}, ${OTHER}, "agentstack": {"url": "${BASE}/mcp", "x": 1}}}`;
    writeFileSync(path, text);
    const error = await updateMcpConfigFile(path, (c) => normalizeMcpConfig(c)).catch((e) => e);
    expect(error.code).toBe('malformed_file');
    expect(error.message).toMatch(/"agentstack" twice/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('the same through the session-start bundle (the edit engine loads lazily there): a card naming the file, not a crash', async () => {
    const text = `{"mcpServers": {"agentstack": {"url": "${BASE}/mcp"}, ${OTHER}, "agentstack": {"url": "${BASE}/mcp", "x": 1}}}`;
    writeFileSync(path, text);
    const run = await sessionStart(dir.path, BASE, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(run.code).toBe(0);
    const context = String(JSON.parse(run.stdout).additional_context);
    // The home folder (HOME is this dir) is written `~`.
    expect(context).toContain('~/mcp.json names "agentstack" twice in the same object');
    expect(context).not.toMatch(/status check failed/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});
