/**
 * The pre-MCP hook and input it cannot read. An `agentstack.execute` call whose stdin is over the cap (a 5 MiB
 * field) must get `ask`, like a call whose arguments cannot be parsed: the hook failing open would let an
 * unapproved action through unchecked. Only a call the hook can see is not AgentStack's gets `{}`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook } from '../helpers/sessionStart.js';

const dir = tempDir('agentstack-premcp-unreadable-');
const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
beforeAll(() => {
  mkdirSync(dir.path, { recursive: true });
  writeSnapshot(join(dir.path, 'agentstack-capabilities.json'), { ...bigSnapshot(50), unapproved: ['auth.op_12'] });
  const token = jwt({ sub: 'u', exp: Math.floor(Date.now() / 1000) + 3600, caps: ['projects:read', 'data:read', 'profile:read'] });
  writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', headers: { Authorization: `Bearer ${token}` } } } }));
});
afterAll(() => dir.cleanup());

const run = (stdin: string) => runHook(PRE_MCP_SCRIPT, [], hookEnv(dir.path, 'https://agentstack.tech'), stdin);
const BIG = 'x'.repeat(5 * 1024 * 1024);
const unapprovedSteps = JSON.stringify({ steps: [{ id: '1', action: 'auth.op_12', params: { blob: BIG } }] });

describe('an AgentStack call the hook cannot read', () => {
  it('an execute call with an unapproved action and a 5 MiB field: ask, not {}', async () => {
    const r = await run(JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: unapprovedSteps, url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack' }));
    expect(r.code).toBe(0);
    expect(r.json.permission).toBe('ask');
    expect(String(r.json.user_message)).toMatch(/could not read/);
  });

  it('the same with tool_name after the big field, and a decoy "tool_name" inside tool_input: still ask', async () => {
    const stdin = `{"hook_event_name":"beforeMCPExecution","tool_input":{"tool_name":"read_file","blob":"${BIG}"},"url":"https://agentstack.tech/mcp","tool_name":"agentstack.execute"}`;
    const r = await run(stdin);
    expect(r.json.permission).toBe('ask');
  });

  it('an oversized input whose tool name cannot be found at all: ask', async () => {
    const r = await run(`{"hook_event_name":"beforeMCPExecution","tool_input":"${BIG}"`);
    expect(r.json.permission).toBe('ask');
  });

  it('control: an oversized call the hook can see is another tool, or another server\'s execute: {}', async () => {
    const other = await run(JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'write_file', tool_input: JSON.stringify({ content: BIG }), url: 'https://files.example/mcp' }));
    expect(other.json).toEqual({});
    const otherExecute = await run(JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'execute', tool_input: JSON.stringify({ content: BIG }), url: 'https://other.example/mcp', mcp_server_name: 'user-other' }));
    expect(otherExecute.json).toEqual({});
  });

  it('control: the same call under the cap is checked as usual (ask naming the unapproved action)', async () => {
    const small = JSON.stringify({ steps: [{ id: '1', action: 'auth.op_12' }] });
    const r = await run(JSON.stringify({ tool_name: 'agentstack.execute', tool_input: small, mcp_server_name: 'user-agentstack' }));
    expect(r.json.permission).toBe('ask');
    expect(String(r.json.user_message)).toContain('auth.op_12');
  });
});
