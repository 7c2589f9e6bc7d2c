import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { flattenCatalog, readCatalog } from '../../lib/agentstack/snapshot/catalog.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook } from '../helpers/sessionStart.js';

// The built hook as Cursor runs it: stdin JSON in, exactly one JSON object out, exit 0.
const dir = tempDir();
const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
beforeAll(() => {
  mkdirSync(dir.path, { recursive: true });
  writeSnapshot(join(dir.path, 'agentstack-capabilities.json'), { ...bigSnapshot(5000), unapproved: ['auth.op_12'] });
  const token = jwt({ sub: 'u', exp: Math.floor(Date.now() / 1000) + 3600, caps: ['projects:read', 'data:read'] });
  writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', headers: { Authorization: `Bearer ${token}` } } } }));
});
afterAll(() => dir.cleanup());

const run = (stdin: string) => runHook(PRE_MCP_SCRIPT, [], hookEnv(dir.path, 'https://agentstack.tech'), stdin);
const execute = (steps: object[]) => JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps }), url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack' });

describe('pre-mcp-cap-check.cjs', () => {
  it('another server: exactly {} (no permission at all), and no snapshot read', async () => {
    const r = await run(JSON.stringify({ tool_name: 'search', tool_input: '{}', url: 'https://other.example/mcp' }));
    expect(r.code).toBe(0);
    expect(r.json).toEqual({});
    expect(r.stderr).toBe('');
  });

  it('malformed stdin: {} and one stderr line', async () => {
    const r = await run('{"tool_name": ');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({});
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('unknown action: deny with suggestions; missing capability: deny naming it', async () => {
    const unknown = await run(execute([{ id: '1', action: 'projects.lsit' }]));
    expect(unknown.json).toMatchObject({ permission: 'deny' });
    expect(String(unknown.json.agent_message)).toContain('projects.list');
    const missing = await run(execute([{ id: '1', action: 'projects.op_10' }]));
    expect(missing.code).toBe(0);
    expect(missing.json.permission).toBe('deny');
    expect(String(missing.json.user_message)).toContain('"actions:execute"');
  });

  it('unapproved action: ask, naming it; malformed tool_input: ask', async () => {
    const ask = await run(execute([{ id: '1', action: 'auth.op_12' }]));
    expect(ask.json).toMatchObject({ permission: 'ask' });
    expect(String(ask.json.user_message)).toContain('auth.op_12');
    const bad = await run(JSON.stringify({ tool_name: 'agentstack_execute', tool_input: '{oops', mcp_server_name: 'agentstack' }));
    expect(bad.json.permission).toBe('ask');
  });

  it('an action missing from a snapshot whose catalog had unreadable entries: ask, not deny', async () => {
    const other = tempDir();
    try {
      // The server's list as the plugin reads it: one entry without a name is left out and counted.
      const catalog = readCatalog({ domains: { projects: [{ action: 'projects.list', required_cap: 'projects:read' }, { required_cap: 'projects:write' }] } });
      writeSnapshot(join(other.path, 'agentstack-capabilities.json'), flattenCatalog(catalog));
      writeFileSync(join(other.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', headers: { Authorization: `Bearer ${jwt({ sub: 'u', exp: Math.floor(Date.now() / 1000) + 3600 })}` } } } }));
      const r = await runHook(PRE_MCP_SCRIPT, [], hookEnv(other.path, 'https://agentstack.tech'), execute([{ id: '1', action: 'projects.create' }]));
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({ permission: 'ask' });
      expect(String(r.json.user_message)).toContain('1 entry the plugin could not read');
      const known = await runHook(PRE_MCP_SCRIPT, [], hookEnv(other.path, 'https://agentstack.tech'), execute([{ id: '1', action: 'projects.list' }]));
      expect(known.json).toEqual({});
    } finally {
      other.cleanup();
    }
  });
});
