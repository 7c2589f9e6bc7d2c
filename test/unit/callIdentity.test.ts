import { describe, expect, it } from 'vitest';
import { knownBaseUrls } from '../../lib/agentstack/server/knownBases.js';
import { callIdentity, firstLook, isAgentStackCall, placeCall, splitToolName } from '../../lib/agentstack/server/callIdentity.js';
import { mcpUrlKey } from '../../lib/agentstack/server/baseUrl.js';

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
    // Named by url alone, another tool is placed without parsing the url: only one that mentions AgentStack is checked.
    expect(look({ tool_name: 'create_issue', url: 'https://api.example/mcp' })).toBe('neutral');
    expect(look({ tool_name: 'read_file', mcp_server_url: 'https://files.example.com/mcp' })).toBe('neutral');
    expect(look({ tool_name: 'agentstack.describe', url: 'http://127.0.0.1:9/mcp' })).toBe('check');
    expect(look({ tool_name: 'describe', url: 'https://AgentStack.tech/mcp' })).toBe('check');
    // Our tool joined to our server's name, in every joining Cursor and other agents use.
    for (const name of ['user-agentstack-agentstack.execute', 'user-agentstack:agentstack.execute', 'MCP:user-agentstack-agentstack.execute', 'mcp_user-agentstack_agentstack_execute', 'mcp_user_agentstack_agentstack_execute']) {
      expect(look({ tool_name: name }), name).toBe('check');
      expect(isAgentStackCall(callIdentity({ tool_name: name }), []), name).toBe(true);
    }
    expect(isAgentStackCall(callIdentity({ tool_name: 'user-files-agentstack.execute' }), [])).toBe(false);
  });
});

describe('joined tool names', () => {
  it.each([
    ['user-agentstack-agentstack.execute', { server: 'user-agentstack', tool: 'agentstack.execute', form: 'joined' }],
    ['user-agentstack:agentstack.execute', { server: 'user-agentstack', tool: 'agentstack.execute', form: 'joined' }],
    ['MCP:user-agentstack-agentstack.execute', { server: 'user-agentstack', tool: 'agentstack.execute', form: 'joined' }],
    ['mcp_user-agentstack_agentstack_execute', { server: 'user-agentstack', tool: 'agentstack_execute', form: 'joined' }],
    ['plugin-agentstack-agentstack/agentstack.execute', { server: 'plugin-agentstack-agentstack', tool: 'agentstack.execute', form: 'joined' }],
    ['xagentstack.execute', { server: null, tool: 'xagentstack.execute', form: 'bare' }],
    ['user-files-read_file', { server: null, tool: 'user-files-read_file', form: 'bare' }],
  ])('%s', (name, expected) => {
    expect(splitToolName(name)).toEqual(expected);
  });
});

describe('placeCall: urls compared normalized', () => {
  const place = (url: string, bases = ['http://127.0.0.1:4000', BASE]) => placeCall(callIdentity({ tool_name: 'agentstack.execute', mcp_server_name: 'project-x', url }), bases);
  it.each([
    `${MCP}?x=1`, `${MCP}#frag`, `${MCP}/`, `${MCP}//`, 'HTTPS://AGENTSTACK.TECH/mcp', 'https://agentstack.tech:443/mcp', 'https://agentstack.tech./mcp', 'https://u:p@agentstack.tech/mcp',
    'https://agentstack.tech/%6dcp', 'http://localhost:4000/mcp', 'http://[::1]:4000/mcp', 'http://127.0.0.1:4000/mcp?k=v#f', 'http://127.1:4000/mcp', 'http://app.localhost:4000/mcp',
    // Every address of this machine reaches the server listening on 127.0.0.1 (0.0.0.0 and :: too).
    'http://0.0.0.0:4000/mcp', 'http://0:4000/mcp', 'http://[::]:4000/mcp',
  ])('%s is AgentStack', (url) => {
    expect(place(url)).toBe('agentstack');
  });
  it.each([
    'http://agentstack.tech/mcp', 'https://agentstack.tech:8443/mcp', 'https://agentstack.tech/mcp/x', 'https://agentstack.tech/MCP', 'http://127.0.0.1:4001/mcp',
    'https://agentstack.tech.evil.example/mcp', 'not a url', 'ftp://agentstack.tech/mcp',
  ])('%s cannot be placed', (url) => {
    expect(place(url)).toBe('unplaced');
  });
  it('a call naming another server and no url is another server\'s; our name wins over any url', () => {
    expect(placeCall(callIdentity({ tool_name: 'agentstack.execute', mcp_server_name: 'github' }), [BASE])).toBe('other');
    expect(placeCall(callIdentity({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: 'https://x.example/mcp' }), [BASE])).toBe('agentstack');
    expect(mcpUrlKey('http://[::1]:80/mcp/')).toBe('http://loopback:80/mcp');
  });
});

describe('the credential\'s server stays known when the entry is renamed', () => {
  const renamed = { mcpServers: { 'my-tools': { url: 'http://127.0.0.1:4100/mcp' } } };
  const place = (bases: string[]) => placeCall(callIdentity({ tool_name: 'agentstack.execute', mcp_server_name: 'my-tools', url: 'http://127.0.0.1:4100/mcp' }), bases);
  it('a resource that is the MCP URL', () => {
    expect(place(knownBaseUrls(renamed, {}, ['http://127.0.0.1:4100/mcp']))).toBe('agentstack');
  });
  it('a resource that is the origin (RFC 9728 metadata at the root location)', () => {
    expect(place(knownBaseUrls(renamed, {}, ['http://127.0.0.1:4100']))).toBe('agentstack');
    expect(place(knownBaseUrls(renamed, {}, ['http://127.0.0.1:4100/']))).toBe('agentstack');
  });
  it('a resource that is not a URL identifies nothing', () => {
    expect(place(knownBaseUrls(renamed, {}, ['http://127.0.0.1:4100/x\u2019;calc', null, 'api://x']))).toBe('unplaced');
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
