/**
 * The whole-plugin checks of AgentStack's own plugin (the plugin tests run them on the shipped files): each problem
 * they name, worded exactly, and what they let pass.
 */
import { describe, expect, it } from 'vitest';
import { checkHooksJson, checkManifest, checkShippedMcpJson } from '../../lib/commands/audit/pluginRules.js';

const MANIFEST = { name: 'agentstack', mcpServers: './mcp.json', logo: 'assets/logo.png', hooks: './hooks/hooks.json', commands: './commands/' };
const MCP = { mcpServers: { agentstack: { type: 'http', url: 'https://agentstack.tech/mcp' } } };

describe('checkManifest', () => {
  it('passes the shipped form, and a manifest without hooks or logo', () => {
    expect(checkManifest(MANIFEST)).toEqual([]);
    expect(checkManifest({ name: 'agentstack', mcpServers: './mcp.json' })).toEqual([]);
    expect(checkManifest({ ...MANIFEST, logo: 'assets/LOGO.PNG' })).toEqual([]);
  });

  it('names each problem once', () => {
    expect(checkManifest('x')).toEqual(['plugin.json is not a JSON object']);
    expect(checkManifest({ ...MANIFEST, extra: 1 })).toEqual(['plugin.json has key "extra", which Cursor\'s schema rejects']);
    expect(checkManifest({ ...MANIFEST, mcpServers: './servers.json' })).toEqual(['plugin.json "mcpServers" must be the string "./mcp.json" (inline servers register twice or not at all)']);
    expect(checkManifest({ ...MANIFEST, hooks: { sessionStart: [] } })).toContain('plugin.json "hooks" should be a path to hooks/hooks.json');
    expect(checkManifest({ ...MANIFEST, logo: 'assets/logo.svg' })).toEqual(['plugin.json "logo" should be a PNG (SVG with gradients renders blank in Cursor)']);
    expect(checkManifest({ ...MANIFEST, logo: 'assets/logo.png.svg' })).toHaveLength(1);
    expect(checkManifest({ ...MANIFEST, logo: 7 })).toContain('plugin.json "logo" should be a PNG (SVG with gradients renders blank in Cursor)');
    expect(checkManifest({ ...MANIFEST, logo: ['assets/logo.png'] })).toContain('plugin.json "logo" should be a PNG (SVG with gradients renders blank in Cursor)');
    expect(checkManifest({ ...MANIFEST, name: 'Agent Stack' })[0]).toMatch(/^plugin\.json /);
  });

  it('a path that leaves the plugin or is absolute, for logo, hooks and commands', () => {
    for (const key of ['logo', 'hooks', 'commands'] as const) {
      for (const value of ['../x.png', 'a/../../x.png', '/etc/x.png']) {
        expect(checkManifest({ ...MANIFEST, [key]: value }), `${key} ${value}`).toContain(`plugin.json "${key}" must be a relative path without ".."`);
      }
      expect(checkManifest({ ...MANIFEST, [key]: 'x/y.png' }).join('\n')).not.toContain('relative path');
    }
    expect(checkManifest({ ...MANIFEST, rules: '../rules/' }).join('\n')).not.toContain('"rules" must be a relative path');
  });
});

describe('checkShippedMcpJson', () => {
  it('passes the shipped form, with or without a trailing slash, beside other servers', () => {
    expect(checkShippedMcpJson(MCP)).toEqual([]);
    expect(checkShippedMcpJson({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp/' } } })).toEqual([]);
    expect(checkShippedMcpJson({ mcpServers: { ...MCP.mcpServers, docs: { url: 'https://docs.example/mcp' }, local: { command: 'node' }, odd: 'x' } })).toEqual([]);
  });

  it('stops at what is missing, keeping what it found before', () => {
    expect(checkShippedMcpJson(null)).toEqual(['mcp.json is not a JSON object']);
    expect(checkShippedMcpJson({ $schema: 'x' })).toEqual(['mcp.json has "$schema": Cursor then registers no server at all', 'mcp.json has no "mcpServers" object']);
    expect(checkShippedMcpJson({ mcpServers: { other: {} } })).toEqual(['mcp.json has no "agentstack" server']);
    expect(checkShippedMcpJson({ $schema: 'x', mcpServers: { agentstack: 'https://agentstack.tech/mcp' } })).toEqual(['mcp.json has "$schema": Cursor then registers no server at all', 'mcp.json has no "agentstack" server']);
  });

  it('names each fault of the entry', () => {
    const one = (fields: Record<string, unknown>) => checkShippedMcpJson({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', ...fields } } });
    expect(one({ headers: {} })).toEqual(['mcp.json entry has "headers": the shipped entry must be URL-only (no Authorization)']);
    expect(one({ tools: {} })).toEqual(['mcp.json entry has a "tools" map: actions come from GET /mcp/actions']);
    expect(one({ note: '${X}' })).toEqual(['mcp.json contains a ${...} placeholder (an unset variable sends an empty Bearer)']);
    expect(one({ note: '$X {Y}' })).toEqual([]);
    for (const url of ['http://agentstack.tech/mcp', 'https://agentstack.tech/api', 'https://agentstack.tech/mcp/x', 42, undefined]) {
      expect(one({ url }), String(url)).toEqual(['mcp.json "url" must be an https URL ending in /mcp']);
    }
  });

  it('AgentStack registered a second time under another name', () => {
    const twice = { mcpServers: { ...MCP.mcpServers, mine: { url: 'https://AgentStack.tech/mcp' }, docs: { url: 'https://docs.example/mcp' }, bad: { url: 42 }, list: { url: ['https://agentstack.tech/mcp'] } } };
    expect(checkShippedMcpJson(twice)).toEqual(['mcp.json registers AgentStack twice ("mine")']);
  });
});

describe('checkHooksJson', () => {
  const hooks = (entry: Record<string, unknown>) => ({ version: 1, hooks: { sessionStart: [entry] } });

  it('passes an anchored command with a timeout, and returns the commands', () => {
    const { problems, commands } = checkHooksJson(hooks({ command: 'node "${CURSOR_PLUGIN_ROOT}/hooks/scripts/s.cjs"', timeout: 20 }));
    expect(problems).toEqual([]);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ event: 'sessionStart', timeout: 20, anchored: true });
  });

  it('names a missing timeout and a relative path, per event', () => {
    expect(checkHooksJson(hooks({ command: 'node "${CURSOR_PLUGIN_ROOT}/hooks/scripts/s.cjs"' })).problems).toEqual(['hooks.json "sessionStart" has no timeout']);
    expect(checkHooksJson(hooks({ command: 'node ./hooks/scripts/s.cjs', timeout: 5 })).problems).toEqual(['hooks.json "sessionStart" command is not anchored at ${CURSOR_PLUGIN_ROOT} (relative paths fail with exit 127)']);
    expect(checkHooksJson({ version: 2, hooks: {} }).problems.length).toBeGreaterThan(0);
  });
});
