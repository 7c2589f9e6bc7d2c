/**
 * The activity journal end to end, with the built scripts as Cursor and a person run them: a real execute call to the
 * reference core, its result handed to the after hook as Cursor does, then read back with activity.mjs; hooks at
 * once; the pre-MCP hook's deny; the setting; the sign-out.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOURNAL_MAX_BYTES, appendJournalRecord, readJournal } from '../../lib/agentstack/journal/file.js';
import { afterRecord, recordLine } from '../../lib/agentstack/journal/record.js';
import { EXECUTE_TOOL } from '../../lib/agentstack/server/toolNames.js';
import { rotatedPath } from '../../lib/platform/fs/rotatingLog.js';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook } from '../helpers/sessionStart.js';

const AFTER_SCRIPT = join(REPO_ROOT, 'hooks/scripts/after-mcp-journal.cjs');
const script = (name: string) => join(REPO_ROOT, name);
const fx = useCoreAndCursorDirs('agentstack-journal-it-');
const journalOf = (dir: string) => join(dir, 'agentstack-journal.jsonl');
const PLANTED = 'PLANTED-VALUE-4d1e0c';

function run(name: string, args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [script(name), ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An afterMCPExecution input as Cursor builds it: the call's arguments and its result, each a JSON string. */
function afterInput(fields: Record<string, unknown>, args: unknown, result: unknown): string {
  return JSON.stringify({ hook_event_name: 'afterMCPExecution', tool_input: JSON.stringify(args), result_json: JSON.stringify(result), ...fields });
}

const simpleCall = (n: number) => afterInput(
  { tool_name: EXECUTE_TOOL, mcp_server_name: 'user-agentstack', conversation_id: `conv-${n}`, duration: n },
  { steps: [{ id: '1', action: 'system.ping', params: { echo: PLANTED } }] },
  { content: [{ type: 'text', text: '{"ok":true,"results":[{"id":"1","action":"system.ping","ok":true,"data":{"pong":true}}]}' }], structuredContent: { ok: true, results: [{ id: '1', action: 'system.ping', ok: true, data: { pong: true } }] } },
);

describe('a real call, recorded by the after hook and shown by activity.mjs', () => {
  it('two steps, one failing with missing_capability: both actions and the code; no parameter or result datum anywhere in the journal', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl);
    // The token grants profile:read only: the first step runs (its data holds the account's e-mail), the second is refused.
    const { access_token: token } = await fx.core.issueTokens({ scope: 'openid profile:read' });
    const args = { steps: [{ id: 'who', action: 'auth.get_profile', params: { note: PLANTED } }, { id: 'list', action: 'projects.list', params: { filter: PLANTED } }] };
    const client = new Client({ name: 'journal-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(fx.core.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const result = await client.callTool({ name: EXECUTE_TOOL, arguments: args });
    await client.close();
    expect(JSON.stringify(result)).toContain('dev@agentstack.test');

    const hook = await runHook(AFTER_SCRIPT, [], env, afterInput({ tool_name: EXECUTE_TOOL, mcp_server_name: 'user-agentstack', mcp_server_url: fx.core.mcpUrl, conversation_id: 'conv-a', generation_id: 'gen-a', duration: 57 }, args, result));
    expect(hook).toMatchObject({ code: 0, json: {}, stderr: '' });

    const text = readFileSync(journalOf(dir), 'utf8');
    for (const secret of [PLANTED, 'dev@agentstack.test', token, 'usr_dev_0001']) expect(text).not.toContain(secret);
    const table = run('scripts/activity.mjs', [], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/auth\.get_profile, projects\.list\s+failed: projects\.list missing_capability \(57 ms\)/);
    const doc = JSON.parse(run('scripts/activity.mjs', ['--json'], env).stdout);
    expect(doc.records).toEqual([expect.objectContaining({
      hook: 'after', server: 'user-agentstack', error: true, duration_ms: 57, conversation_id: 'conv-a', generation_id: 'gen-a',
      steps: [{ id: 'who', action: 'auth.get_profile', outcome: 'ok' }, { id: 'list', action: 'projects.list', outcome: 'missing_capability' }],
    })]);
    expect(run('scripts/activity.mjs', ['--failed', '--action', 'projects.*'], env).stdout).toContain('missing_capability');
    expect(run('scripts/activity.mjs', ['--action', 'data.*'], env).stdout).toMatch(/^No record matches/);
  });

  it('another server\'s call: {} and nothing written or read; our tool by its url alone is recorded, at AgentStack\'s url or one the plugin cannot place', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl);
    const other = await runHook(AFTER_SCRIPT, [], env, afterInput({ tool_name: 'read_file', mcp_server_name: 'user-files', mcp_server_url: 'https://files.example/mcp' }, { path: '/x' }, { content: [] }));
    expect(other).toMatchObject({ code: 0, json: {}, stderr: '' });
    expect(existsSync(journalOf(dir))).toBe(false);
    // Its chunk was never loaded (the chunk loader would have begun its compile cache).
    expect(existsSync(join(dir, 'agentstack-compile-cache'))).toBe(false);
    await runHook(AFTER_SCRIPT, [], env, afterInput({ tool_name: `MCP:${EXECUTE_TOOL}`, mcp_server_url: `${fx.core.mcpUrl}?x=1` }, { steps: [{ id: '1', action: 'system.ping' }] }, { isError: false }));
    // A url the plugin cannot place may be AgentStack's reached another way: recorded under its host.
    const elsewhere = await runHook(AFTER_SCRIPT, [], env, afterInput({ tool_name: `MCP:${EXECUTE_TOOL}`, mcp_server_url: 'https://other.example/mcp' }, { steps: [] }, {}));
    expect(elsewhere.json).toEqual({});
    expect(readJournal(journalOf(dir)).records).toEqual([
      expect.objectContaining({ server: new URL(fx.core.mcpUrl).host, steps: [{ id: '1', action: 'system.ping', outcome: 'unknown' }] }),
      expect.objectContaining({ server: 'other.example' }),
    ]);
  });
});

describe('hooks at once', () => {
  it('16 concurrent after hooks add 16 whole records', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl);
    const runs = await Promise.all(Array.from({ length: 16 }, (_, n) => runHook(AFTER_SCRIPT, [], env, simpleCall(n))));
    expect(runs.every((r) => r.code === 0)).toBe(true);
    const { records, skipped } = readJournal(journalOf(dir));
    expect(skipped).toBe(0);
    expect(records.map((r) => r.conversation_id).sort()).toEqual(Array.from({ length: 16 }, (_, n) => `conv-${n}`).sort());
  });

  it('16 at the moment the file is full: every record, old and new, is kept', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl);
    const old = (n: number) => afterRecord({ now: Date.now() - 60_000, server: 'user-agentstack', conversationId: `old-${n}`, toolInput: { steps: [] }, resultJson: null });
    const size = Buffer.byteLength(recordLine(old(0)));
    const before = Math.floor((JOURNAL_MAX_BYTES - 20) / size);
    for (let n = 0; n < before; n++) appendJournalRecord(journalOf(dir), old(n));
    await Promise.all(Array.from({ length: 16 }, (_, n) => runHook(AFTER_SCRIPT, [], env, simpleCall(n))));
    expect(existsSync(rotatedPath(journalOf(dir)))).toBe(true);
    const { records, skipped } = readJournal(journalOf(dir));
    expect(skipped).toBe(0);
    expect(records).toHaveLength(before + 16);
    expect(records.filter((r) => r.conversation_id?.startsWith('conv-'))).toHaveLength(16);
  });
});

describe('the pre-MCP hook, the setting and the sign-out', () => {
  const preInput = (action: string) => JSON.stringify({
    hook_event_name: 'beforeMCPExecution', tool_name: EXECUTE_TOOL, mcp_server_name: 'user-agentstack', url: `${fx.core.baseUrl}/mcp`, conversation_id: 'conv-p',
    tool_input: JSON.stringify({ steps: [{ id: '1', action, params: { name: PLANTED } }] }),
  });

  it('a call it denies is journaled with its reason (and shown as such); a call it lets through writes nothing', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl, { AGENTSTACK_DENY_ACTIONS: 'projects.delete' });
    const through = await runHook(PRE_MCP_SCRIPT, [], env, preInput('projects.list'));
    expect(through.json.permission).toBeUndefined();
    expect(existsSync(journalOf(dir))).toBe(false);
    const denied = await runHook(PRE_MCP_SCRIPT, [], env, preInput('projects.delete'));
    expect(denied.json.permission).toBe('deny');
    expect(readJournal(journalOf(dir)).records).toEqual([expect.objectContaining({ hook: 'pre', decision: 'deny', reasons: ['rule:deny-actions'], conversation_id: 'conv-p', steps: [{ id: '1', action: 'projects.delete' }] })]);
    expect(readFileSync(journalOf(dir), 'utf8')).not.toContain(PLANTED);
    expect(run('scripts/activity.mjs', ['--failed'], env).stdout).toMatch(/projects\.delete\s+denied by your rules \(deny-actions\)/);
  });

  it('config set journal off: neither hook records; activity says it is off', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl, { AGENTSTACK_DENY_ACTIONS: 'projects.delete' });
    expect(run('scripts/config.mjs', ['set', 'journal', 'off'], env).code).toBe(0);
    expect((await runHook(AFTER_SCRIPT, [], env, simpleCall(1))).json).toEqual({});
    expect((await runHook(PRE_MCP_SCRIPT, [], env, preInput('projects.delete'))).json.permission).toBe('deny');
    expect(existsSync(journalOf(dir))).toBe(false);
    expect(run('scripts/activity.mjs', [], env).stdout).toMatch(/! The journal is off/);
    expect(run('scripts/config.mjs', ['set', 'journal', 'maybe'], env).code).toBe(2);
  });

  it('--logout keeps the journal (it holds no secret); --purge-journal removes it; --purge-journal alone is bad usage', async () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl);
    await runHook(AFTER_SCRIPT, [], env, simpleCall(1));
    const kept = run('hooks/scripts/device-code.mjs', ['--logout', '--json'], env);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ event: 'signed_out', journal: 'kept' });
    expect(kept.stderr).toContain('--purge-journal removes it');
    expect(readJournal(journalOf(dir)).records).toHaveLength(1);
    const purged = run('hooks/scripts/device-code.mjs', ['--logout', '--purge-journal'], env);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toContain('The activity journal was removed');
    expect(existsSync(journalOf(dir))).toBe(false);
    expect(run('hooks/scripts/device-code.mjs', ['--purge-journal'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--purge-journal works only with --logout') });
  });

  it('activity.mjs refuses what it cannot read, with exit 2', () => {
    const dir = fx.cursorDir();
    const env = hookEnv(dir, fx.core.baseUrl);
    expect(run('scripts/activity.mjs', ['--since', '2'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--since takes a span') });
    expect(run('scripts/activity.mjs', ['--limit', '0', '--json'], env)).toMatchObject({ code: 2, stdout: expect.stringContaining('"error":"usage"') });
    mkdirSync(join(dir, 'sub'));
    writeFileSync(journalOf(dir), '');
    expect(run('scripts/activity.mjs', [], env).stdout).toMatch(/^No AgentStack call recorded yet/);
  });
});
