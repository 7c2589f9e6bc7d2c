import { describe, expect, it } from 'vitest';
import { editJsonText, formattingOf } from '../../lib/platform/text/jsonEdit.js';
import { configEdits } from '../../lib/agentstack/mcpJson/file.js';

const entry = { type: 'http', url: 'https://agentstack.tech/mcp' };
const edit = (text: string, edits: Parameters<typeof editJsonText>[1]) => {
  const result = editJsonText(text, edits);
  if (result.kind === 'refused') throw new Error(result.reason);
  return result.text;
};
const set = (text: string, value: unknown = entry) => edit(text, [{ path: ['mcpServers', 'agentstack'], value }]);

describe('editJsonText: only the edited value changes', () => {
  it.each([
    ['no mcpServers (multi-line)', '{\n  "theme": "x"\n}\n', '{\n  "theme": "x",\n  "mcpServers": {\n    "agentstack": {\n      "type": "http",\n      "url": "https://agentstack.tech/mcp"\n    }\n  }\n}\n'],
    ['an empty root', '{}', '{"mcpServers":{"agentstack":{"type":"http","url":"https://agentstack.tech/mcp"}}}'],
    ['empty mcpServers over lines', '{\n    "mcpServers": {\n    }\n}', '{\n    "mcpServers": {\n        "agentstack": {\n            "type": "http",\n            "url": "https://agentstack.tech/mcp"\n        }\n    }\n}'],
    ['tabs and CRLF', '{\r\n\t"mcpServers": {\r\n\t\t"a": 1\r\n\t}\r\n}', '{\r\n\t"mcpServers": {\r\n\t\t"a": 1,\r\n\t\t"agentstack": {\r\n\t\t\t"type": "http",\r\n\t\t\t"url": "https://agentstack.tech/mcp"\r\n\t\t}\r\n\t}\r\n}'],
  ])('%s', (_name, text, want) => {
    expect(set(text)).toBe(want);
    expect(JSON.parse(set(text)).mcpServers.agentstack).toEqual(entry);
  });

  it('replaces an existing value in place, keeping its indentation', () => {
    const text = '{\n  "mcpServers": {\n    "agentstack": {"url": "old", "tools": {}},\n    "b": 1e400\n  }\n}';
    expect(set(text)).toBe('{\n  "mcpServers": {\n    "agentstack": {\n      "type": "http",\n      "url": "https://agentstack.tech/mcp"\n    },\n    "b": 1e400\n  }\n}');
  });

  it('removes a property and its comma, nothing else', () => {
    expect(edit('{"mcpServers": {"a": 1, "agentstack": {}}, "z": 2}', [{ path: ['mcpServers', 'agentstack'], value: undefined }])).toBe('{"mcpServers": {"a": 1}, "z": 2}');
  });

  it('refuses a key named twice on the edited path (JSON.parse keeps the last; an edit would change the first)', () => {
    expect(editJsonText('{"mcpServers": {}, "mcpServers": {"agentstack": {}}}', [{ path: ['mcpServers', 'agentstack'], value: 1 }]))
      .toEqual({ kind: 'refused', reason: 'names "mcpServers" twice in the same object' });
    expect(editJsonText('{"mcpServers": []}', [{ path: ['mcpServers', 'agentstack'], value: 1 }])).toMatchObject({ kind: 'refused' });
  });

  it('reads the indentation the file uses', () => {
    expect(formattingOf('{\n    "a": 1\n}')).toMatchObject({ insertSpaces: true, tabSize: 4, eol: '\n' });
    expect(formattingOf('{\r\n\t"a": 1\r\n}')).toMatchObject({ insertSpaces: false, eol: '\r\n' });
    expect(formattingOf('{"a":1}')).toMatchObject({ insertSpaces: true, tabSize: 2 });
  });
});

describe('configEdits: one edit per changed entry, none for untouched ones', () => {
  it('an unchanged other server (even one JSON cannot round-trip) gives no edit', () => {
    const other = { n: Infinity };
    const before = { mcpServers: { other, agentstack: { url: 'a' } }, x: 1 };
    const after = { ...before, mcpServers: { ...before.mcpServers, agentstack: entry } };
    expect(configEdits(before, after)).toEqual([{ path: ['mcpServers', 'agentstack'], value: entry }]);
    expect(configEdits(before, before)).toEqual([]);
  });

  it('a new mcpServers object is one edit of the whole key', () => {
    expect(configEdits({ theme: 'x' }, { theme: 'x', mcpServers: { agentstack: entry } })).toEqual([{ path: ['mcpServers'], value: { agentstack: entry } }]);
  });
});
