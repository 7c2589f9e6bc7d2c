/**
 * The organization's entries in Cursor's enterprise hooks file, as text edits (pure): every other entry keeps its
 * bytes, a second add changes nothing, remove gives back the file as it was, an entry of ours that differs is
 * replaced in place; and the command line takes only paths no shell could misread.
 */
import { describe, expect, it } from 'vitest';
import { addGateEntries, gateEntriesIn, newHooksText, removeGateEntries, type GateEntries } from '../../lib/commands/managed/hooksFile.js';
import { hookCommand, unsafePath } from '../../lib/commands/managed/commandLine.js';

const DIR = '/usr/local/lib/agentstack-cursor/hooks/scripts';
const entries = (node = '/usr/bin/node'): GateEntries => ({
  beforeMCPExecution: { command: hookCommand(node, `${DIR}/pre-mcp-cap-check.cjs`), timeout: 5, failClosed: true },
  afterMCPExecution: { command: hookCommand(node, `${DIR}/after-mcp-journal.cjs`), timeout: 5 },
});
const ok = (r: ReturnType<typeof addGateEntries>) => { if (r.kind !== 'ok') throw new Error(r.reason); return r; };

const FILES = [
  '{"version":1,"hooks":{"beforeMCPExecution":[{"command":"/opt/a --x","timeout":1.50}]}}',
  '{\n    "version": 1,\n    "hooks": {\n        "stop": [ { "command": "/opt/b" } ],\n        "beforeMCPExecution": [\n            { "command": "/opt/a", "n": 1e400 }\n        ]\n    }\n}\n',
  '\uFEFF{\r\n\t"hooks": {\r\n\t\t"afterMCPExecution": []\r\n\t},\r\n\t"version": 1\r\n}\r\n',
  '{"version": 1}',
];

describe('the gate\'s entries in the enterprise hooks file', () => {
  for (const [i, text] of FILES.entries()) {
    it(`file ${i}: add keeps the rest's bytes; a second add changes nothing; remove restores it`, () => {
      const added = ok(addGateEntries(text, entries(), DIR));
      expect(added.changed).toBe(true);
      const found = gateEntriesIn(added.text, DIR)!;
      expect(found.beforeMCPExecution).toEqual({ command: entries().beforeMCPExecution.command, failClosed: true });
      expect(found.afterMCPExecution?.failClosed).toBe(false);
      expect(ok(addGateEntries(added.text, entries(), DIR)).changed).toBe(false);
      const removed = ok(removeGateEntries(added.text, DIR, added.createdEvents));
      expect(removed.text).toBe(text);
    });
  }

  it('another node replaces our entry in place, never a second one', () => {
    const added = ok(addGateEntries(FILES[1]!, entries(), DIR));
    const moved = ok(addGateEntries(added.text, entries('/usr/local/bin/node'), DIR));
    expect(moved.changed).toBe(true);
    const before = (JSON.parse(moved.text) as { hooks: { beforeMCPExecution: Array<{ command: string }> } }).hooks.beforeMCPExecution;
    expect(before.map((e) => e.command)).toEqual(['/opt/a', entries('/usr/local/bin/node').beforeMCPExecution.command]);
  });

  it('refuses a file whose hooks are not an object, or whose event is not a list', () => {
    expect(addGateEntries('[]', entries(), DIR).kind).toBe('refused');
    expect(addGateEntries('{"hooks":{"beforeMCPExecution":{}}}', entries(), DIR).kind).toBe('refused');
  });

  it('a new file holds only the two entries, the pre-MCP one failing closed', () => {
    const parsed = JSON.parse(newHooksText(entries())) as { version: number; hooks: Record<string, Array<Record<string, unknown>>> };
    expect(parsed.version).toBe(1);
    expect(parsed.hooks.beforeMCPExecution).toEqual([{ command: '"/usr/bin/node" "/usr/local/lib/agentstack-cursor/hooks/scripts/pre-mcp-cap-check.cjs"', timeout: 5, failClosed: true }]);
  });
});

describe('the command line', () => {
  it('passes plain absolute paths, refuses what a shell could misread or a relative one', () => {
    expect(unsafePath('/usr/bin/node', 'linux')).toBeNull();
    expect(unsafePath('/Library/Application Support/AgentStack/cursor-gate/hooks/scripts/x.cjs', 'darwin')).toBeNull();
    expect(unsafePath('C:\\Program Files\\nodejs\\node.exe', 'win32')).toBeNull();
    for (const bad of ['/opt/$HOME/node', '/opt/a"b/node', '/opt/`id`/node', '/opt/a\\b/node', '/opt/a\nb', '/opt/é/node', 'node']) expect(unsafePath(bad, 'linux'), bad).not.toBeNull();
    for (const bad of ['C:\\a%PATH%\\node.exe', 'C:\\a"b\\node.exe', 'C:\\a&b\\node.exe', 'C:\\a!b\\node.exe']) expect(unsafePath(bad, 'win32'), bad).not.toBeNull();
  });
});
