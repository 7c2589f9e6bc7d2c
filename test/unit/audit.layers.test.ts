/**
 * The audit's generic layer, rule by rule on plugin files built in memory: how a profile picks its rules, how a
 * finding becomes a row (FAIL, WARN, PASS, and the list it shows), and the exact words of the manifest, MCP and
 * file rules a person reads.
 */
import { describe, expect, it } from 'vitest';
import { AGENTSTACK_PLUGIN_NAME, profileFor, runRules } from '../../lib/commands/audit/auditPlugin.js';
import { bundlesSelfContainedRule, secretsRule } from '../../lib/commands/audit/fileRules.js';
import { manifestFieldsRule, manifestKeysRule, manifestNameRule, manifestPathsRule, versionsRule } from '../../lib/commands/audit/manifestRules.js';
import { hasAuth, hasMcp, mcpAuthRule, mcpSchemaKeyRule, mcpServersRule, mcpVariablesRule, serverEntries } from '../../lib/commands/audit/mcpRules.js';
import { docProblem, list, verdict, type AuditContext, type AuditRule } from '../../lib/commands/audit/rule.js';
import { fail, pass, warn } from '../../lib/platform/report.js';
import { doc, pluginFiles, text } from '../helpers/auditFiles.js';

const ctx = (profile: 'generic' | 'agentstack'): AuditContext => ({ profile, freshness: { mode: 'banner', why: 'test' } });
const withManifest = (value: Record<string, unknown>) => pluginFiles({ manifest: doc('.cursor-plugin/plugin.json', value) });

describe('layers and profiles', () => {
  const rules: AuditRule[] = [
    { id: 'g.warn', layer: 'generic', run: () => warn('g.warn', 'advice', 'do it') },
    { id: 'g.never', layer: 'generic', appliesTo: () => false, run: () => pass('g.never', 'x') },
    { id: 'g.applies', layer: 'generic', appliesTo: () => true, run: () => pass('g.applies', 'fine') },
    { id: 'a.fail', layer: 'agentstack', run: () => fail('a.fail', 'own rule') },
  ];

  it('generic runs the generic rules that apply, advice stays a WARN; agentstack adds its own and a WARN is a FAIL', () => {
    expect(runRules(pluginFiles(), ctx('generic'), rules)).toEqual([
      { id: 'g.warn', status: 'WARN', summary: 'advice', fix: 'do it' }, { id: 'g.applies', status: 'PASS', summary: 'fine' },
    ]);
    expect(runRules(pluginFiles(), ctx('agentstack'), rules)).toEqual([
      { id: 'g.warn', status: 'FAIL', summary: 'advice', fix: 'do it' }, { id: 'g.applies', status: 'PASS', summary: 'fine' }, { id: 'a.fail', status: 'FAIL', summary: 'own rule' },
    ]);
  });

  it('the profile: chosen, or AgentStack\'s for the plugin named so', () => {
    expect(AGENTSTACK_PLUGIN_NAME).toBe('agentstack');
    expect(profileFor(withManifest({ name: 'agentstack' }))).toBe('agentstack');
    expect(profileFor(withManifest({ name: 'agentstack' }), 'auto')).toBe('agentstack');
    expect(profileFor(withManifest({ name: 'agentstack' }), 'generic')).toBe('generic');
    expect(profileFor(withManifest({ name: 'demo' }), 'agentstack')).toBe('agentstack');
    expect(profileFor(withManifest({ name: 'agentstack-tools' }))).toBe('generic');
    expect(profileFor(pluginFiles({ manifest: { path: '.cursor-plugin/plugin.json', exists: false } }))).toBe('generic');
  });

  it('a finding becomes a row: rejects FAIL with the advice after them, advice alone WARNs, nothing PASSes', () => {
    const words = { pass: 'ok', fix: 'fix it', adviceFix: 'consider it' };
    expect(verdict('x', { rejects: ['r1'], advice: ['a1'] }, words)).toEqual({ id: 'x', status: 'FAIL', summary: 'r1; a1', fix: 'fix it', details: { problems: ['r1'], advice: ['a1'] } });
    expect(verdict('x', { rejects: [], advice: ['a1', 'a2'] }, words)).toEqual({ id: 'x', status: 'WARN', summary: 'a1; a2', fix: 'consider it', details: { advice: ['a1', 'a2'] } });
    expect(verdict('x', { rejects: [], advice: ['a1'] }, { pass: 'ok', fix: 'fix it' }).fix).toBe('fix it');
    expect(verdict('x', { rejects: [], advice: [] }, words)).toEqual({ id: 'x', status: 'PASS', summary: 'ok' });
    expect(verdict('x', { rejects: ['1', '2', '3'], advice: [] }, { ...words, max: 2 }).summary).toBe('1; 2; …(1 more)');
  });

  it('a list shows four items, then how many more', () => {
    expect(list([])).toBe('');
    expect(list(['a', 'b', 'c', 'd'])).toBe('a; b; c; d');
    expect(list(['a', 'b', 'c', 'd', 'e'])).toBe('a; b; c; d; …(1 more)');
    expect(list(['a', 'b', 'c'], 2)).toBe('a; b; …(1 more)');
  });

  it('why a JSON document cannot be judged', () => {
    expect(docProblem({ path: 'p.json', exists: false })).toBe('p.json is missing');
    expect(docProblem({ path: 'p.json', exists: true, error: 'Unexpected token' })).toBe('p.json is not valid JSON (Unexpected token)');
    expect(docProblem(doc('p.json', [1]))).toBe('p.json is not a JSON object');
    expect(docProblem(doc('p.json', {}))).toBeNull();
  });
});

describe('manifest rules', () => {
  it('keys, name and fields, worded', () => {
    expect(manifestKeysRule(withManifest({ name: 'demo' }))).toEqual({ id: 'manifest.keys', status: 'PASS', summary: "plugin.json keys are all in Cursor's plugin schema" });
    expect(manifestKeysRule(withManifest({ name: 'demo', id: 1, private: true }))).toEqual({ id: 'manifest.keys', status: 'FAIL', summary: 'plugin.json has "id", "private", which Cursor\'s schema rejects', fix: 'Remove the keys Cursor does not know', details: { unknown: ['id', 'private'] } });
    expect(manifestKeysRule(pluginFiles({ manifest: { path: '.cursor-plugin/plugin.json', exists: false } }))).toEqual({ id: 'manifest.keys', status: 'FAIL', summary: '.cursor-plugin/plugin.json is missing', fix: 'Create .cursor-plugin/plugin.json with at least {"name": "<kebab-case>"}' });
    expect(manifestNameRule(withManifest({ name: 'demo' }))).toEqual({ id: 'manifest.name', status: 'PASS', summary: 'plugin name "demo" matches Cursor\'s pattern' });
    expect(manifestNameRule(withManifest({ name: 'De Mo' }))).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/^plugin\.json /), fix: 'Use a name like "my-plugin"' });
    const unreadable = pluginFiles({ manifest: doc('.cursor-plugin/plugin.json', 'text') });
    for (const rule of [manifestNameRule, manifestFieldsRule]) expect(rule(unreadable)).toMatchObject({ status: 'FAIL', summary: 'plugin.json cannot be read', fix: 'Fix plugin.json first' });
    expect(manifestFieldsRule(withManifest({ name: 'demo', license: 'MIT', keywords: ['a'] }))).toEqual({ id: 'manifest.fields', status: 'PASS', summary: '2 field(s) besides "name" have the form Cursor\'s schema expects' });
    const bad = manifestFieldsRule(withManifest({ name: 'demo', license: 1, displayName: 2, category: 3, keywords: 4, tags: 5, homepage: 'x', repository: 'y' }));
    expect(bad).toMatchObject({ status: 'FAIL', fix: "Give each field the form Cursor's schema expects" });
    expect(bad.summary).toMatch(/^plugin\.json "[a-zA-Z]+" .*; …\(1 more\)$/);
    const advice = manifestFieldsRule(withManifest({ name: 'demo', variables: { type: 'object', properties: { KEY: { description: 'k' } } } }));
    expect(advice).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/^plugin\.json "variables" entry "KEY" has no "type"/), fix: 'Give each field the form Cursor\'s docs show' });
  });

  it('paths the manifest names', () => {
    expect(manifestPathsRule(pluginFiles())).toEqual({ id: 'manifest.paths', status: 'PASS', summary: 'plugin.json names no component paths (conventional folders are used)' });
    expect(manifestPathsRule(pluginFiles({ componentPaths: [{ field: 'commands', value: './commands/', exists: true }] })).summary).toBe('1 path(s) named by plugin.json exist');
    const missing = pluginFiles({ componentPaths: [{ field: 'commands', value: './x/', exists: false }, { field: 'logo', value: 'a.png', exists: true }] });
    expect(manifestPathsRule(missing)).toEqual({ id: 'manifest.paths', status: 'FAIL', summary: 'plugin.json names path(s) that do not exist in the plugin or leave it: "commands": "./x/"', fix: 'Point each field at a file or folder inside the plugin (relative, without "..")', details: { missing: ['"commands": "./x/"'] } });
  });

  it('versions: semantic, the same in package.json, named in CHANGELOG.md', () => {
    const id = 'versions';
    const at = (version: unknown, over = {}) => versionsRule(pluginFiles({ manifest: doc('.cursor-plugin/plugin.json', { name: 'demo', version }), changelog: '## 1.2.3\n', ...over }));
    expect(versionsRule(withManifest({ name: 'demo' }))).toEqual({ id, status: 'WARN', summary: 'plugin.json has no "version"', fix: 'Set "version" (e.g. "1.0.0") so people can tell releases apart' });
    expect(at('1.2')).toEqual({ id, status: 'WARN', summary: 'plugin.json "version" "1.2" is not a semantic version', fix: 'Use "MAJOR.MINOR.PATCH" (e.g. "1.0.0")' });
    for (const v of [123, 'v1.2.3', '1.2.3 ', ' 1.2.3', '1.2.3-', 'a1.2.3', '1.2.3x']) expect(at(v).summary, String(v)).toMatch(/ is not a semantic version$/);
    expect(at(['1.2.3']).summary).toBe('plugin.json "version" ["1.2.3"] is not a semantic version');
    expect(at('12.34.56', { changelog: '## 12.34.56\n' }).status).toBe('PASS');
    expect(at('1.2.3')).toEqual({ id, status: 'PASS', summary: 'version 1.2.3 agrees in plugin.json and CHANGELOG.md' });
    expect(at('1.2.3-beta.1', { changelog: '## 1.2.3-beta.1\n' }).status).toBe('PASS');
    expect(at('1.2.3+build.5', { changelog: '## [1.2.3+build.5]\n' }).status).toBe('PASS');
    expect(at('1.2.3', { packageJson: doc('package.json', { version: '1.2.3' }) }).summary).toBe('version 1.2.3 agrees in plugin.json, package.json and CHANGELOG.md');
    expect(at('1.2.3', { packageJson: doc('package.json', { name: 'x' }) }).status).toBe('PASS');
    expect(at('1.2.3', { packageJson: doc('package.json', { version: '9.9.9' }), changelog: null })).toEqual({ id, status: 'WARN', summary: 'plugin.json is 1.2.3 but package.json says "9.9.9"; there is no CHANGELOG.md', fix: 'Keep one version everywhere and say what changed in CHANGELOG.md' });
    expect(at('1.2.3', { changelog: '## 1.2.4\n' }).summary).toBe('plugin.json is 1.2.3 but CHANGELOG.md has no "## 1.2.3" heading');
    expect(at('1.2.3', { packageJson: { path: 'package.json', exists: true, error: 'bad' } }).status).toBe('PASS');
  });
});

describe('MCP rules', () => {
  const mcp = (value: unknown, path = 'mcp.json') => pluginFiles({ mcpDocs: [doc(path, value)], mcpJson: doc(path, value) });

  it('which servers a plugin has: mcp.json objects or lists, and inline ones in the manifest', () => {
    const files = pluginFiles({
      manifest: doc('.cursor-plugin/plugin.json', { name: 'demo', mcpServers: [{ inline: { url: 'https://i/mcp' } }, 'skip.json'] }),
      mcpDocs: [doc('mcp.json', { mcpServers: { a: { url: 'https://a/mcp' }, b: 'not an object' } }), doc('more.json', { mcpServers: [{ c: { command: 'c' } }, 3] }), doc('none.json', [1])],
    });
    expect(serverEntries(files)).toEqual([['mcp.json a', { url: 'https://a/mcp' }], ['mcp.json b', {}], ['more.json c', { command: 'c' }], ['plugin.json inline', { url: 'https://i/mcp' }]]);
    expect(serverEntries(withManifest({ name: 'demo', mcpServers: './mcp.json' }))).toEqual([]);
    expect(serverEntries(withManifest({ name: 'demo', mcpServers: { x: { url: 'u' } } }))).toEqual([['plugin.json x', { url: 'u' }]]);
    expect(hasMcp(pluginFiles())).toBe(false);
    expect(hasMcp(pluginFiles({ manifest: { path: '.cursor-plugin/plugin.json', exists: false } }))).toBe(false);
    const unreadable = pluginFiles({ mcpDocs: [{ path: 'mcp.json', exists: true, error: 'Unexpected token' }, { path: 'gone.json', exists: false }, doc('ok.json', { mcpServers: { a: { command: 'a' } } })] });
    expect(serverEntries(unreadable)).toEqual([['ok.json a', { command: 'a' }]]);
    expect(hasMcp(withManifest({ name: 'demo', mcpServers: './mcp.json' }))).toBe(true);
    expect(hasMcp(mcp({}))).toBe(true);
    expect(hasAuth(mcp({ mcpServers: { a: { url: 'https://a/mcp' } } }))).toBe(false);
    expect(hasAuth(mcp({ mcpServers: { a: { url: 'https://a/mcp', auth: null } } }))).toBe(true);
  });

  it('$schema and the servers, worded', () => {
    expect(mcpSchemaKeyRule(mcp({ mcpServers: {} }))).toEqual({ id: 'mcp.no-$schema', status: 'PASS', summary: 'no "$schema" in the MCP configuration' });
    expect(mcpSchemaKeyRule(mcp({ $schema: 'x' }, 'servers.json'))).toEqual({ id: 'mcp.no-$schema', status: 'FAIL', summary: 'servers.json has "$schema": Cursor then registers no server at all', fix: 'Delete the "$schema" key' });
    expect(mcpSchemaKeyRule(mcp('$schema')).status).toBe('PASS');
    const both = pluginFiles({ mcpDocs: [doc('a.json', { $schema: 'x' }), doc('b.json', { mcpServers: {} }), doc('c.json', { $schema: 'x' })] });
    expect(mcpSchemaKeyRule(both).summary).toBe('a.json, c.json has "$schema": Cursor then registers no server at all');
    const names = Array.from({ length: 7 }, (_, i) => `s${i}`);
    const seven = mcp({ mcpServers: Object.fromEntries(names.map((n) => [n, { url: `https://${n}.example/mcp` }])) });
    expect(mcpServersRule(seven)).toEqual({ id: 'mcp.servers', status: 'PASS', summary: '7 MCP server(s): s0; s1; s2; s3; s4; s5; …(1 more)' });
    const fix = 'Give each server {"url": "https://…"} (hosted) or {"command": "…"} (local)';
    expect(mcpServersRule(mcp({ servers: {} }))).toEqual({ id: 'mcp.servers', status: 'FAIL', summary: 'mcp.json has no "mcpServers" object', fix, details: { problems: ['mcp.json has no "mcpServers" object'] } });
    expect(mcpServersRule(mcp([1])).summary).toBe('mcp.json is not a JSON object');
    expect(mcpServersRule(mcp({ mcpServers: { a: { command: '  ' }, b: { command: 'node' }, c: {} } })).summary).toBe('mcp.json a has neither "url" nor "command"; mcp.json c has neither "url" nor "command"');
    expect(mcpServersRule(mcp({ mcpServers: { a: { url: 'ftp://a' } } })).summary).toMatch(/^mcp\.json a "url" /);
    expect(mcpServersRule(mcp({ mcpServers: { a: { url: 'https://a/mcp', command: 5 } } })).status).toBe('PASS');
  });

  it('placeholders: declared in "variables" (either form) or built in', () => {
    const server = { mcpServers: { a: { url: 'https://a/mcp', headers: { Authorization: 'Bearer ${KEY}', X: '${env:HOME}' } } } };
    const files = (variables: unknown) => pluginFiles({ manifest: doc('.cursor-plugin/plugin.json', { name: 'demo', variables }), mcpDocs: [doc('mcp.json', server)] });
    expect(mcpVariablesRule(files({ type: 'object', properties: { KEY: { type: 'string' } } }))).toEqual({ id: 'mcp.variables', status: 'PASS', summary: '2 placeholder(s), each declared or built in' });
    expect(mcpVariablesRule(files({ KEY: { type: 'string' } })).status).toBe('PASS');
    expect(mcpVariablesRule(files({ properties: { KEY: {} } })).status).toBe('PASS');
    expect(mcpVariablesRule(files({ type: 'object', properties: 'KEY' })).status).toBe('WARN');
    expect(mcpVariablesRule(files({ type: 'object', KEY: {} })).status).toBe('WARN');
    expect(mcpVariablesRule(files(undefined))).toEqual({ id: 'mcp.variables', status: 'WARN', summary: '${KEY} used in a server but not declared in plugin.json "variables"', fix: 'Declare each in "variables" so Cursor asks for it; an unset one is sent empty (an empty Bearer)' });
    const two = { mcpServers: { a: { url: 'https://a/${HOST}/mcp', headers: { Authorization: 'Bearer ${KEY}' } } } };
    expect(mcpVariablesRule(pluginFiles({ mcpDocs: [doc('mcp.json', two)] })).summary).toBe('${HOST}, ${KEY} used in a server but not declared in plugin.json "variables"');
    expect(mcpVariablesRule(mcp({ mcpServers: { a: { url: 'https://a/mcp' } } })).summary).toBe('no ${…} placeholders in the servers');
  });

  it('"auth" blocks, worded', () => {
    const auth = (value: unknown) => mcpAuthRule(mcp({ mcpServers: { a: { url: 'https://a/mcp', auth: value } } }));
    expect(auth({ CLIENT_ID: '${ID}' })).toEqual({ id: 'mcp.auth', status: 'PASS', summary: '1 server(s) with "auth": CLIENT_ID a string, CLIENT_SECRET a string, scopes strings' });
    const rejected = auth({ CLIENT_ID: 42 });
    expect(rejected).toMatchObject({ status: 'FAIL', fix: 'Write "auth" as {"CLIENT_ID": "${MY_CLIENT_ID}", "CLIENT_SECRET": "${MY_CLIENT_SECRET}", "scopes": ["read"]} (only CLIENT_ID is required)' });
    expect(rejected.summary).toMatch(/^mcp\.json a /);
    const advice = auth({ CLIENT_ID: '${ID}', extra: 1 });
    expect(advice).toMatchObject({ status: 'WARN', fix: 'Keep only CLIENT_ID, CLIENT_SECRET and scopes in "auth", on a "url" server, with the secret as a ${VARIABLE}' });
    expect(advice.summary).toMatch(/^mcp\.json a /);
    expect(mcpAuthRule(mcp({ mcpServers: { a: { command: 'node', auth: { CLIENT_ID: '${ID}' } } } })).status).toBe('WARN');
  });
});

describe('file rules', () => {
  it('bundles that import packages, and secret-looking text', () => {
    const bundle = (path: string, body: string) => text(path, body);
    const ok = pluginFiles({ bundles: [bundle('hooks/a.cjs', 'require("node:fs");require("./b.cjs")')] });
    expect(bundlesSelfContainedRule(ok)).toEqual({ id: 'bundles.self-contained', status: 'PASS', summary: '1 bundled script(s) import only node: built-ins and relative files' });
    const bad = pluginFiles({ bundles: [bundle('hooks/a.cjs', 'require("a");require("b");require("c");require("d")'), bundle('hooks/b.cjs', 'import x from "zod"')] });
    expect(bundlesSelfContainedRule(bad)).toEqual({
      id: 'bundles.self-contained', status: 'FAIL', summary: 'hooks/a.cjs imports a, b, c; hooks/b.cjs imports zod', fix: 'Bundle every dependency into the script: Cursor installs plugins without npm install',
      details: [{ path: 'hooks/a.cjs', bare: ['a', 'b', 'c', 'd'] }, { path: 'hooks/b.cjs', bare: ['zod'] }],
    });
    expect(secretsRule(pluginFiles({ texts: [text('a.md', 'nothing here')] }))).toEqual({ id: 'secrets', status: 'PASS', summary: 'no secret-looking strings in 1 text files' });
    const jwt = ['eyJhbGciOiJIUzI1NiJ9', Buffer.from('{"sub":"fixture-user-123"}').toString('base64url'), 'c2lnbmF0dXJlLXNpZ25hdHVyZQ'].join('.');
    const found = secretsRule(pluginFiles({ texts: [text('a.md', `one\ntoken ${jwt}\n`)] }));
    expect(found).toMatchObject({ id: 'secrets', status: 'WARN', fix: 'Remove them and rotate any real credential' });
    expect(found.summary).toMatch(/^secret-looking strings: a\.md:2 JWT eyJh\*+/);
    expect(JSON.stringify(found)).not.toContain(jwt);
  });
});
