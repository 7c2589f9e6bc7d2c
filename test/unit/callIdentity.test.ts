import { describe, expect, it } from 'vitest';
import { callIdentity, firstLook, isAgentStackCall, splitToolName } from '../../lib/agentstack/server/callIdentity.js';

const BASE = 'https://agentstack.tech';
const MCP = `${BASE}/mcp`;

describe('splitToolName', () => {
  it.each([
    ['agentstack.execute', { server: null, tool: 'agentstack.execute', form: 'bare' }],
    ['MCP:user-agentstack:agentstack.execute', { server: 'user-agentstack', tool: 'agentstack.execute', form: 'mcp-server-prefix' }],
    ['MCP:agentstack.execute', { server: null, tool: 'agentstack.execute', form: 'mcp-prefix' }],
    ['mcp:agentstack:agentstack_execute', { server: 'agentstack', tool: 'agentstack_execute', form: 'mcp-server-prefix' }],
    ['mcp__agentstack__agentstack.execute', { server: 'agentstack', tool: 'agentstack.execute', form: 'double-underscore' }],
    ['MCP::agentstack.execute', { server: null, tool: ':agentstack.execute', form: 'mcp-prefix' }],
    ['MCP:', { server: null, tool: '', form: 'mcp-prefix' }],
  ])('%s', (name, expected) => {
    expect(splitToolName(name)).toEqual(expected);
  });
});

describe('callIdentity: the server from mcp_server_name, the prefix, url or mcp_server_url, in that order', () => {
  it.each([
    [{ tool_name: 'agentstack.execute', mcp_server_name: 'agentstack' }, { tool: 'agentstack.execute', serverName: 'agentstack', serverUrl: null }],
    [{ tool_name: 'MCP:user-agentstack:agentstack.execute', mcp_server_name: 'plugin-agentstack-agentstack' }, { tool: 'agentstack.execute', serverName: 'plugin-agentstack-agentstack', serverUrl: null }],
    [{ tool_name: 'MCP:user-agentstack:agentstack.execute' }, { tool: 'agentstack.execute', serverName: 'user-agentstack', serverUrl: null }],
    [{ tool_name: 'agentstack.execute', url: MCP, mcp_server_url: 'https://other.example/mcp' }, { tool: 'agentstack.execute', serverName: null, serverUrl: MCP }],
    [{ tool_name: 'agentstack.execute', mcp_server_url: MCP }, { tool: 'agentstack.execute', serverName: null, serverUrl: MCP }],
    [{ tool_name: 'agentstack.execute', mcp_server_name: '  ', url: 42 }, { tool: 'agentstack.execute', serverName: null, serverUrl: null }],
    [{ tool_name: 7 }, { tool: null, serverName: null, serverUrl: null }],
  ])('%j', (raw, expected) => {
    expect(callIdentity(raw)).toMatchObject(expected);
  });
});

describe('isAgentStackCall and firstLook', () => {
  const agentstack = (raw: Record<string, unknown>) => isAgentStackCall(callIdentity(raw), [BASE]);
  it('ours by any of our three names, by a known url base, or by our tool name with no server given', () => {
    for (const name of ['agentstack', 'user-agentstack', 'plugin-agentstack-agentstack']) expect(agentstack({ tool_name: 'agentstack.execute', mcp_server_name: name })).toBe(true);
    expect(agentstack({ tool_name: 'MCP:agentstack.execute', mcp_server_url: `${MCP}/` })).toBe(true);
    expect(agentstack({ tool_name: 'agentstack_execute' })).toBe(true);
    expect(agentstack({ tool_name: 'agentstack.run', url: MCP })).toBe(true);
  });
  it('not ours: another name with another url, an unknown url, a tool that is not ours with no server', () => {
    expect(agentstack({ tool_name: 'agentstack.execute', mcp_server_name: 'github', url: 'https://api.example/mcp' })).toBe(false);
    expect(agentstack({ tool_name: 'agentstack.execute', url: 'https://evil.example/mcp' })).toBe(false);
    expect(agentstack({ tool_name: 'create_issue' })).toBe(false);
  });
  it('firstLook decides from the input alone: other servers, mcp_auth and unnamed foreign tools are neutral', () => {
    const look = (raw: Record<string, unknown>) => firstLook(callIdentity(raw));
    expect(look({ tool_name: 'create_issue', mcp_server_name: 'github', url: 'https://api.example/mcp' })).toBe('neutral');
    expect(look({ tool_name: 'MCP:github:create_issue' })).toBe('neutral');
    expect(look({ tool_name: 'mcp_auth', mcp_server_name: 'user-agentstack' })).toBe('neutral');
    expect(look({ tool_name: 'read_file' })).toBe('neutral');
    expect(look({ tool_name: 'read_file', url: 'https://api.example/v1' })).toBe('neutral');
    expect(look({ tool_name: 'agentstack.execute', mcp_server_name: 'github' })).toBe('check');
    expect(look({ tool_name: 'agentstack.run', mcp_server_name: 'user-agentstack' })).toBe('check');
    // A url of MCP shape cannot be placed without the plugin's files.
    expect(look({ tool_name: 'create_issue', url: 'https://api.example/mcp' })).toBe('check');
  });
});

describe('splitToolName reads as the patterns it replaced', () => {
  const byPattern = (name: string) => {
    const prefixed = /^mcp:(.*)$/is.exec(name);
    if (prefixed) {
      const rest = prefixed[1]!;
      const colon = rest.indexOf(':');
      return colon > 0 && colon < rest.length - 1 ? { server: rest.slice(0, colon), tool: rest.slice(colon + 1) } : { server: null, tool: rest };
    }
    const underscored = /^mcp__(.+?)__(.+)$/s.exec(name);
    return underscored ? { server: underscored[1]!, tool: underscored[2]! } : { server: null, tool: name };
  };
  it('on generated names', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(fc.property(fc.stringMatching(/^(mcp|MCP|Mcp)?[:_]{0,3}[a-z_:.\n]{0,8}$/), (name) => {
      const { server, tool } = splitToolName(name);
      expect({ server, tool }).toEqual(byPattern(name));
    }), { numRuns: 3000 });
  });
});
