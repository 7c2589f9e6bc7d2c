/**
 * The gate holds on every form a call is named in. A reference core serves the snapshot (fetched by the session-start
 * hook as for a person); `deny-actions = projects.create` is set; the built pre-MCP hook is given the same call to
 * `projects.create` in each form Cursor builds, its docs and public hook references name a call in. Every form must
 * deny; an AgentStack call the hook cannot name asks while rules are in effect; `mcp_auth` and other servers' calls
 * stay `{}`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, signedInWithSnapshot } from '../helpers/sessionStart.js';
import { readHookRuns } from '../../lib/agentstack/plugin/hookRuns.js';

const tmp = tempDir('agentstack-forms-');
let core: RunningCore;
let dir: string;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  dir = await signedInWithSnapshot(tmp.path, core);
});
afterAll(async () => {
  await core?.close();
  tmp.cleanup();
});

const RULES = { AGENTSTACK_DENY_ACTIONS: 'projects.create' };
const create = { steps: [{ id: '1', action: 'projects.create', params: { name: 'x' } }] };

async function answer(fields: Record<string, unknown>, env: Record<string, string> = RULES): Promise<Record<string, unknown>> {
  const stdin = JSON.stringify({ hook_event_name: 'beforeMCPExecution', ...fields });
  const run = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl, env), stdin);
  expect(run.code).toBe(0);
  expect(run.json.permission).not.toBe('allow');
  return run.json;
}

describe('the gate on every form a call is named in', { timeout: 120_000 }, () => {
  const mcpUrl = () => `${core.baseUrl}/mcp`;
  const forms: Array<[string, () => Record<string, unknown>]> = [
    ['bare name + mcp_server_name, input as a string', () => ({ tool_name: 'agentstack.execute', mcp_server_name: 'agentstack', tool_input: JSON.stringify(create) })],
    ['bare name + mcp_server_name, input as an object', () => ({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: create })],
    ['bare name + url', () => ({ tool_name: 'agentstack.execute', url: mcpUrl(), tool_input: JSON.stringify(create) })],
    ['bare name + mcp_server_url only', () => ({ tool_name: 'agentstack.execute', mcp_server_url: mcpUrl(), tool_input: JSON.stringify(create) })],
    ['the alias, bare, with no server field at all', () => ({ tool_name: 'agentstack_execute', tool_input: JSON.stringify(create) })],
    ['MCP:user-agentstack:agentstack.execute', () => ({ tool_name: 'MCP:user-agentstack:agentstack.execute', tool_input: JSON.stringify(create) })],
    ['the alias under MCP:agentstack:', () => ({ tool_name: 'MCP:agentstack:agentstack_execute', tool_input: JSON.stringify(create) })],
    ['MCP:plugin-agentstack-agentstack:agentstack.execute (Connect)', () => ({ tool_name: 'MCP:plugin-agentstack-agentstack:agentstack.execute', tool_input: create })],
    ['MCP:agentstack.execute + mcp_server_name', () => ({ tool_name: 'MCP:agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify(create) })],
    ['MCP:agentstack.execute + mcp_server_url', () => ({ tool_name: 'MCP:agentstack.execute', mcp_server_url: mcpUrl(), tool_input: JSON.stringify(create) })],
    ['mcp__agentstack__agentstack.execute', () => ({ tool_name: 'mcp__agentstack__agentstack.execute', tool_input: JSON.stringify(create) })],
  ];
  for (const [form, fields] of forms) {
    it(`denies projects.create: ${form}`, async () => {
      const json = await answer(fields());
      expect(json.permission).toBe('deny');
      expect(String(json.user_message)).toContain('projects.create');
    });
  }

  it('a top-level action beside the steps asks while rules are in effect ("could not be checked"), and is neutral without rules', async () => {
    const input = { steps: [{ id: '1', action: 'projects.list' }], action: 'projects.create' };
    const json = await answer({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify(input) });
    expect(json.permission).toBe('ask');
    expect(String(json.user_message)).toContain('could not be checked');
    expect(String(json.user_message)).toContain('action');
    expect(await answer({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify(input) }, {})).toEqual({});
  });

  it('nested steps inside a step ask while rules are in effect', async () => {
    const input = { steps: [{ id: '1', action: 'projects.list', steps: [{ action: 'projects.create' }] }] };
    const json = await answer({ tool_name: 'MCP:agentstack.execute', mcp_server_url: mcpUrl(), tool_input: input });
    expect(json.permission).toBe('ask');
    expect(String(json.user_message)).toContain('steps[0].steps');
  });

  it('another tool on the AgentStack server asks while rules are in effect, is neutral without, and diagnose learns of it', async () => {
    for (const fields of [
      { tool_name: 'agentstack.run', mcp_server_name: 'user-agentstack' },
      { tool_name: 'MCP:user-agentstack:agentstack.run' },
      { tool_name: 'agentstack.run', mcp_server_url: mcpUrl() },
    ]) {
      const json = await answer({ ...fields, tool_input: JSON.stringify({ action: 'projects.create' }) });
      expect(json.permission).toBe('ask');
      expect(String(json.user_message)).toContain('"agentstack.run"');
    }
    expect(readHookRuns(join(dir, 'agentstack-hook-runs.json'))['pre-mcp']?.unknown_form).toBe('tool agentstack.run');
    expect(await answer({ tool_name: 'agentstack.run', mcp_server_name: 'user-agentstack', tool_input: '{}' }, {})).toEqual({});
    // A call in a known form clears the note.
    await answer({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.list' }] }) });
    expect(readHookRuns(join(dir, 'agentstack-hook-runs.json'))['pre-mcp']?.unknown_form).toBeNull();
  });

  it('mcp_auth and other servers stay neutral in every form', async () => {
    for (const fields of [
      { tool_name: 'mcp_auth', mcp_server_name: 'user-agentstack', tool_input: '{}' },
      { tool_name: 'MCP:user-agentstack:mcp_auth', tool_input: '{}' },
      { tool_name: 'create_issue', mcp_server_name: 'github', url: 'https://api.example.test/mcp', tool_input: JSON.stringify({ action: 'projects.create' }) },
      { tool_name: 'MCP:github:create_issue', tool_input: '{}' },
      { tool_name: 'MCP:create_issue', mcp_server_url: 'https://api.example.test/mcp', tool_input: '{}' },
      { tool_name: 'read_file', tool_input: '{}' },
      { tool_name: 'read_file', url: mcpUrl(), tool_input: '{}' },
    ]) {
      expect(await answer(fields)).toEqual({});
    }
  });

  it('our execute tool at a url the plugin cannot place asks while rules are in effect, naming the url; {} without rules', async () => {
    const fields = { tool_name: 'agentstack.execute', mcp_server_name: 'someone-else', url: 'https://api.example.test/mcp', tool_input: JSON.stringify(create) };
    const json = await answer(fields);
    expect(json.permission).toBe('ask');
    expect(String(json.user_message)).toContain('"https://api.example.test/mcp"');
    expect(await answer(fields, {})).toEqual({});
  });
});
