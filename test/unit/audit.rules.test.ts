/**
 * One fixture plugin per audit rule, in the AgentStack profile: each is a valid copy of this repo's plugin files with
 * exactly one rule broken, generated here and audited for real. (The generic layer has its own fixtures, in the
 * shapes of Cursor's official plugins: audit.generic.test.ts.)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPlugin } from '../../lib/commands/audit/auditPlugin.js';
import { AUDIT_RULES } from '../../lib/commands/audit/rules.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { tempDir } from '../helpers/repo.js';

type Mutation = (dir: string) => void;
const readJson = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
const writeJson = (dir: string, f: string, v: unknown) => writeFileSync(join(dir, f), `${JSON.stringify(v, null, 2)}\n`);
const editJson = (f: string, edit: (v: any) => void): Mutation => (dir) => { const v = readJson(dir, f); edit(v); writeJson(dir, f, v); };
const addFile = (f: string, text: string): Mutation => (dir) => { mkdirSync(join(dir, f, '..'), { recursive: true }); writeFileSync(join(dir, f), text); };
const command = (name: string, body: string) => `---\nname: ${name}\ndescription: A command used only by the audit fixtures.\n---\n\n${body}\n`;
const editBundle = (edit: (text: string) => string): Mutation => (dir) => {
  const f = join(dir, 'scripts/refresh-cursor-runtime.mjs');
  writeFileSync(f, edit(readFileSync(f, 'utf8')));
};
// Built at run time so no secret-looking literal sits in this repository.
const fakeJwt = () => ['eyJhbGciOiJIUzI1NiJ9', Buffer.from('{"sub":"fixture-user-123"}').toString('base64url'), 'c2lnbmF0dXJlLXNpZ25hdHVyZQ'].join('.');

export const FIXTURES: Record<string, Mutation> = {
  'manifest.keys': editJson('.cursor-plugin/plugin.json', (m) => { m.private = true; }),
  'manifest.name': editJson('.cursor-plugin/plugin.json', (m) => { m.name = 'Agent Stack'; }),
  'manifest.fields': editJson('.cursor-plugin/plugin.json', (m) => { m.author = { name: 'AgentStack', url: 'https://agentstack.tech' }; }),
  'manifest.paths': editJson('.cursor-plugin/plugin.json', (m) => { m.commands = './command/'; }),
  versions: editJson('package.json', (p) => { p.version = '9.9.9'; }),
  'manifest.mcpServers': (dir) => {
    writeFileSync(join(dir, 'servers.json'), readFileSync(join(dir, 'mcp.json')));
    editJson('.cursor-plugin/plugin.json', (m) => { m.mcpServers = './servers.json'; })(dir);
  },
  'mcp.no-$schema': editJson('mcp.json', (d) => { d.$schema = 'https://example.com/mcp.schema.json'; }),
  'mcp.no-headers': editJson('mcp.json', (d) => { d.mcpServers.agentstack.headers = { 'X-Client': 'cursor' }; }),
  'mcp.no-placeholders': editJson('mcp.json', (d) => { d.mcpServers.docs = { url: 'https://docs.example.com/${workspaceFolder}' }; }),
  'mcp.servers': editJson('mcp.json', (d) => { d.mcpServers.docs = { type: 'http' }; }),
  'mcp.variables': editJson('mcp.json', (d) => { d.mcpServers.docs = { url: 'https://docs.example.com/mcp', headers: { 'X-Key': '${DOCS_KEY}' } }; }),
  'mcp.auth': editJson('mcp.json', (d) => { d.mcpServers.docs = { url: 'https://docs.example.com/mcp', auth: { CLIENT_ID: 42 } }; }),
  'mcp.url': editJson('mcp.json', (d) => { d.mcpServers.agentstack.url = 'http://agentstack.tech/api'; }),
  'hooks.format': editJson('hooks/hooks.json', (h) => { h.version = 2; }),
  'hooks.anchored': editJson('hooks/hooks.json', (h) => { h.hooks.sessionStart[0].command = 'node ./hooks/scripts/session-start.cjs --from-hook'; }),
  'hooks.timeouts': editJson('hooks/hooks.json', (h) => { delete h.hooks.beforeMCPExecution[0].timeout; }),
  'hooks.targets': editJson('hooks/hooks.json', (h) => { h.hooks.sessionStart[0].command = 'node "${CURSOR_PLUGIN_ROOT}/hooks/scripts/gone.mjs"'; }),
  'bundles.self-contained': editBundle((t) => `${t}\nimport{fetch as __f}from"undici";\n`),
  'bundles.fresh': editBundle((t) => t.split('\n').slice(1).join('\n')),
  'commands.frontmatter': addFile('commands/broken.md', 'Just text, no frontmatter.\n'),
  'skills.frontmatter': addFile('skills/helper/SKILL.md', '---\nname: helper\n---\n\nNo description.\n'),
  'rules.frontmatter': addFile('rules/style.mdc', '---\ndescription: House style\nalwaysApply: sometimes\n---\n\nBe brief.\n'),
  'agents.frontmatter': addFile('agents/reviewer.md', 'An agent without frontmatter.\n'),
  logo: addFile('assets/logo.png', '<svg xmlns="http://www.w3.org/2000/svg"/>'),
  secrets: (dir) => addFile('docs/notes.md', `token for testing: ${fakeJwt()}\n`)(dir),
  'antipattern.inline-mcpServers': editJson('.cursor-plugin/plugin.json', (m) => { m.mcpServers = { agentstack: { url: 'https://agentstack.tech/mcp' } }; }),
  'antipattern.tools-map': editJson('mcp.json', (d) => { d.mcpServers.agentstack.tools = { 'agentstack.execute': { enabled: true } }; }),
  'antipattern.placeholder-auth': editJson('mcp.json', (d) => { d.mcpServers.agentstack.headers = { Authorization: 'Bearer YOUR_TOKEN' }; }),
  'antipattern.second-tool': addFile('commands/run.md', command('run', 'Call the agentstack_execute tool with the steps.')),
  'antipattern.connect-endpoint': addFile('commands/connect.md', command('connect', 'Open https://agentstack.tech/mcp/.well-known/oauth-authorize to connect.')),
  'manifest.minClientVersions': editJson('.cursor-plugin/plugin.json', (m) => { m.minClientVersions = { cursor: '3.12.17' }; }),
  'agent.sign-in-rule': (dir) => {
    const f = join(dir, 'rules/agentstack-sign-in.mdc');
    writeFileSync(f, `${readFileSync(f, 'utf8')}\n${'Some more advice the agent reads in every chat. '.repeat(20)}\n`);
  },
};

describe('audit rules, one fixture plugin per rule', () => {
  const root = tempDir('agentstack-audit-fixtures-');
  const valid = join(root.path, 'valid');
  beforeAll(() => { mkdirSync(valid); copyPlugin(valid); });
  afterAll(() => root.cleanup());

  it('has a fixture for every rule, and runs every rule that applies to this plugin', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual(AUDIT_RULES.map((r) => r.id).sort());
    const ids = auditPlugin(valid, { noRebuild: true }).map((c) => c.id);
    const noComponent = ['mcp.auth', 'skills.frontmatter', 'agents.frontmatter'];
    expect(ids).toEqual(AUDIT_RULES.map((r) => r.id).filter((id) => !noComponent.includes(id)));
  });

  it('passes every rule on a plain copy of this plugin', () => {
    const failing = auditPlugin(valid, { noRebuild: true }).filter((c) => c.status !== 'PASS');
    expect(failing).toEqual([]);
  });

  it.each(Object.keys(FIXTURES))('FAILs the fixture that breaks %s', (rule) => {
    const dir = join(root.path, rule.replace(/[^a-z.-]/gi, '_'));
    mkdirSync(dir);
    copyPlugin(dir);
    FIXTURES[rule]!(dir);
    const checks = auditPlugin(dir, { noRebuild: true });
    const target = checks.find((c) => c.id === rule)!;
    expect(target.status, `${rule}: ${target.summary}`).toBe('FAIL');
    expect(target.fix).toBeTruthy();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });

  it('the sign-in rule must be always applied, name /agentstack-authorize and say never to paste a token', () => {
    const variants: Record<string, (text: string) => string> = {
      'not always applied': (t) => t.replace('alwaysApply: true', 'alwaysApply: false'),
      'no command': (t) => t.replaceAll('/agentstack-authorize', '/sign-in'),
      'no token warning': (t) => t.replace(/^- Never .*$/m, '- Be kind.'),
    };
    for (const [name, edit] of Object.entries(variants)) {
      const dir = join(root.path, `sign-in-rule-${name.replaceAll(' ', '-')}`);
      mkdirSync(dir);
      copyPlugin(dir);
      const f = join(dir, 'rules/agentstack-sign-in.mdc');
      writeFileSync(f, edit(readFileSync(f, 'utf8')));
      expect(auditPlugin(dir, { noRebuild: true }).find((c) => c.id === 'agent.sign-in-rule')?.status, name).toBe('FAIL');
    }
  });

  it('never prints the secret it found', () => {
    const dir = join(root.path, 'secret-print');
    mkdirSync(dir);
    copyPlugin(dir);
    FIXTURES.secrets!(dir);
    const text = JSON.stringify(auditPlugin(dir, { noRebuild: true }));
    expect(text).not.toContain(fakeJwt());
    expect(text).toMatch(/docs\/notes\.md:1 JWT eyJh\*+/);
  });
});
