import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTopLevelScanner } from '../../lib/platform/text/hookInputScan.js';

function scan(text: string, chunk = 7) {
  const s = createTopLevelScanner();
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += chunk) s.feed(bytes.subarray(i, i + chunk));
  return s.result();
}

describe('the top-level scan of hook input too large to read whole', () => {
  it('finds the outer tool_name, url and mcp_server_name wherever they are, across chunk borders', () => {
    const text = JSON.stringify({ a: { tool_name: 'decoy', url: 'x' }, tool_input: '{"tool_name":"read_file"}', url: 'https://agentstack.tech/mcp', list: ['tool_name', { tool_name: 'y' }], tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack' });
    expect(scan(text)).toEqual({ tool_name: 'agentstack.execute', url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack' });
    expect(scan(text, 1)).toEqual(scan(text, 4096));
  });
  it('decodes escapes; a non-string or conflicting value names nothing', () => {
    expect(scan('{"tool_name":"agentstack\\u002eexecute"}')).toEqual({ tool_name: 'agentstack.execute' });
    expect(scan('{"tool_name":5,"url":null}')).toEqual({});
    expect(scan('{"tool_name":"a","tool_name":"b"}')).toEqual({});
    expect(scan('{"tool_name":"a","tool_name":"a"}')).toEqual({ tool_name: 'a' });
  });
  it('agrees with JSON.parse on the outer keys of any object (property)', () => {
    fc.assert(fc.property(fc.dictionary(fc.constantFrom('tool_name', 'url', 'mcp_server_name', 'tool_input', 'x'), fc.oneof(fc.string(), fc.jsonValue())), fc.integer({ min: 1, max: 50 }), (obj, chunk) => {
      const expected: Record<string, string> = {};
      for (const k of ['tool_name', 'url', 'mcp_server_name']) if (typeof obj[k] === 'string' && (obj[k] as string).length < 500) expected[k] = obj[k] as string;
      expect(scan(JSON.stringify(obj), chunk)).toEqual(expected);
    }));
  });
});
