/**
 * A call the person's rules deny must be denied however it is spelled: its URL written another way (a query, a
 * fragment, `localhost` or `[::1]` for `127.0.0.1`, a trailing slash, an entry renamed with the same URL), its tool
 * name in a form Cursor or another agent joins server and tool with, or its input not strict JSON (a BOM, a trailing
 * NUL, a second object). An execute call at an MCP URL the plugin cannot place asks while rules are in effect, naming
 * the URL. A call with 40,000 unique unknown steps is answered well inside Cursor's 5 s timeout. The built hook is
 * run, as Cursor runs it, on a Cursor dir holding a snapshot and a Device Code entry for a loopback server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook } from '../helpers/sessionStart.js';
import { expectWithinDeadline } from '../helpers/deadline.js';
import { CHECK_DEADLINE_S } from '../../lib/commands/preMcp/gate/past.js';

const tmp = tempDir('agentstack-spellings-');
const BASE = 'http://127.0.0.1:45801';
const MCP = `${BASE}/mcp`;
const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const RULES = { AGENTSTACK_DENY_ACTIONS: 'projects.list' };

function cursorDir(name: string, key = 'agentstack'): string {
  const dir = join(tmp.path, name);
  mkdirSync(dir, { recursive: true });
  writeSnapshot(join(dir, 'agentstack-capabilities.json'), bigSnapshot(50));
  const token = jwt({ sub: 'u', exp: Math.floor(Date.now() / 1000) + 3600, caps: ['projects:read', 'data:read', 'profile:read'] });
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { [key]: { url: MCP, headers: { Authorization: `Bearer ${token}` } } } }));
  return dir;
}

let dir: string;
beforeAll(() => { dir = cursorDir('cursor'); });
afterAll(() => tmp.cleanup());

/** The environment of a person with no AGENTSTACK_BASE_URL: the entry in mcp.json is what names the server. */
const env = (cursor: string, extra: Record<string, string> = RULES) => hookEnv(cursor, '', extra);
const denied = { steps: [{ id: '1', action: 'projects.list' }] };
const call = (fields: Record<string, unknown>) => JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_input: JSON.stringify(denied), ...fields });
const answer = async (stdin: string, cursor = dir, extra?: Record<string, string>) => {
  const run = await runHook(PRE_MCP_SCRIPT, [], env(cursor, extra), stdin);
  expect(run.code).toBe(0);
  expect(run.json.permission).not.toBe('allow');
  return run;
};

describe('the URL spelled another way', { timeout: 60_000 }, () => {
  it.each([
    ['as written in mcp.json', MCP],
    ['with a query', `${MCP}?x=1`],
    ['with a fragment', `${MCP}#x`],
    ['with a trailing slash', `${MCP}/`],
    ['localhost for 127.0.0.1', 'http://localhost:45801/mcp'],
    ['[::1] for 127.0.0.1', 'http://[::1]:45801/mcp'],
    ['upper-case scheme and host', 'HTTP://LOCALHOST:45801/mcp'],
  ])('%s: deny, from another mcp.json entry', async (_what, url) => {
    const run = await answer(call({ tool_name: 'agentstack.execute', mcp_server_name: 'project-other', url }));
    expect(run.json.permission).toBe('deny');
    expect(String(run.json.user_message)).toContain('projects.list');
  });

  it('the agentstack entry renamed, with the same URL: deny (the Device Code credential names its server); ask without it', async () => {
    const renamed = cursorDir('renamed', 'work');
    const stdin = call({ tool_name: 'agentstack.execute', mcp_server_name: 'user-work', url: `${MCP}?via=renamed` });
    expect((await answer(stdin, renamed)).json.permission).toBe('ask');
    writeRefreshFile(join(renamed, 'agentstack-refresh'), { refresh_token: 'rt-test', token_type: 'Bearer', resource: MCP });
    expect((await answer(stdin, renamed)).json.permission).toBe('deny');
  });

  it('another port, scheme or path is not AgentStack: ask while rules are in effect, naming the URL; {} without rules', async () => {
    for (const url of ['http://127.0.0.1:45802/mcp', 'https://127.0.0.1:45801/mcp', 'https://mcp.example.test/mcp']) {
      const run = await answer(call({ tool_name: 'agentstack.execute', mcp_server_name: 'project-other', url }));
      expect(run.json.permission).toBe('ask');
      expect(String(run.json.user_message)).toContain(url);
      expect((await answer(call({ tool_name: 'agentstack.execute', mcp_server_name: 'project-other', url }), dir, {})).json).toEqual({});
    }
  });

  it('the ask at an unplaced URL reaches the journal', async () => {
    const journaled = cursorDir('journaled');
    await answer(call({ tool_name: 'agentstack.execute', mcp_server_name: 'project-other', url: 'https://mcp.example.test/mcp?k=1' }), journaled);
    const lines = readFileSync(join(journaled, 'agentstack-journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ decision: 'ask', server: 'project-other' });
  });
});

describe('tool names that join server and tool', { timeout: 60_000 }, () => {
  it.each([
    ['user-agentstack-agentstack.execute, with url', { tool_name: 'user-agentstack-agentstack.execute', url: MCP }],
    ['user-agentstack-agentstack.execute, alone', { tool_name: 'user-agentstack-agentstack.execute' }],
    ['user-agentstack:agentstack.execute', { tool_name: 'user-agentstack:agentstack.execute' }],
    ['MCP:user-agentstack-agentstack.execute', { tool_name: 'MCP:user-agentstack-agentstack.execute' }],
    ['mcp_user-agentstack_agentstack_execute', { tool_name: 'mcp_user-agentstack_agentstack_execute' }],
    ['plugin-agentstack-agentstack-agentstack_execute', { tool_name: 'plugin-agentstack-agentstack-agentstack_execute' }],
  ])('%s: deny', async (_form, fields) => {
    const run = await answer(call(fields));
    expect(run.json.permission).toBe('deny');
  });

  it('control: another server joined the same way stays {}', async () => {
    expect((await answer(call({ tool_name: 'user-files-read_file' }))).json).toEqual({});
    expect((await answer(call({ tool_name: 'user-other-agentstack.execute', mcp_server_name: 'user-other' }))).json).toEqual({});
  });
});

describe('input that is not strict JSON', { timeout: 60_000 }, () => {
  const text = call({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack' });
  it.each([
    ['a leading UTF-8 BOM', `\uFEFF${text}`],
    ['a trailing NUL', `${text}\u0000`],
    ['trailing NULs and whitespace', `${text}\u0000\u0000\n`],
  ])('%s: answered from what can be read (deny)', async (_what, stdin) => {
    expect((await answer(stdin)).json.permission).toBe('deny');
  });

  it.each([
    ['a second object after the call', `${text}${JSON.stringify({ tool_name: 'read_file' })}`],
    ['the same call twice', `${text}\n${text}`],
    ['the call cut short', text.slice(0, -3)],
  ])('%s: never {} (ask or deny)', async (_what, stdin) => {
    const run = await answer(stdin);
    expect(['ask', 'deny']).toContain(run.json.permission);
  });

  it('control: junk that names no call is {}; another server\'s call with a BOM is {}', async () => {
    expect((await answer('not json at all')).json).toEqual({});
    expect((await answer(`\uFEFF${JSON.stringify({ tool_name: 'read_file', mcp_server_name: 'user-files', tool_input: '{}' })}`)).json).toEqual({});
  });
});

describe('work bounded by a deadline', { timeout: 60_000 }, () => {
  it('40,000 unique unknown steps: deny well inside Cursor\'s 5 s', async () => {
    const steps = Array.from({ length: 40_000 }, (_, i) => ({ id: String(i), action: `nope.a${i}` }));
    const stdin = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps }) });
    // `deny` (about a second here); `ask` only if this machine is so loaded that the 3.5 s deadline struck first.
    const oneStep = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'nope.a1' }] }) });
    for (const extra of [{}, RULES]) {
      // Beside it, the same hook on a one-step call: what a run costs here now. The hook's own processing deadline
      // (then ask) keeps the answer inside Cursor's 5 s.
      const [run, base] = await Promise.all([answer(stdin, dir, extra), answer(oneStep, dir, extra)]);
      expect(['deny', 'ask']).toContain(run.json.permission);
      expectWithinDeadline(run.ms, { deadlineMs: CHECK_DEADLINE_S * 1000, baselineMs: base.ms, what: '40,000 unknown steps' });
    }
  });
});
