/**
 * AgentStack's own audit rules, each on this plugin's files read once from a copy and then changed in memory: the
 * exact row a person reads (status, summary, fix) for the plugin as shipped and for each way it can be wrong.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundlesFreshRule, connectEndpointRule, inlineMcpServersRule, mcpHeadersRule, mcpPlaceholderRule, mcpServersPointerRule, mcpUrlRule,
  minClientVersionRule, placeholderAuthRule, secondToolRule, SIGN_IN_RULE_MAX_CHARS, signInRuleRule, toolsMapRule,
} from '../../lib/commands/audit/agentstackRules.js';
import { readPluginFiles, type JsonDoc, type PluginFiles } from '../../lib/commands/audit/readPlugin.js';
import type { AuditContext } from '../../lib/commands/audit/rule.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
let shipped: PluginFiles;
beforeAll(() => {
  tmp = tempDir('agentstack-audit-own-');
  mkdirSync(join(tmp.path, 'p'));
  shipped = readPluginFiles(copyPlugin(join(tmp.path, 'p')));
});
afterAll(() => tmp?.cleanup());

const doc = (path: string, value: unknown): JsonDoc => ({ path, exists: true, value });
const withManifest = (edit: Record<string, unknown>): PluginFiles => ({ ...shipped, manifest: doc(shipped.manifest.path, { ...(shipped.manifest.value as object), ...edit }) });
const withMcp = (value: unknown): PluginFiles => ({ ...shipped, mcpJson: doc('mcp.json', value), mcpDocs: [doc('mcp.json', value)] });
const entry = (fields: Record<string, unknown>) => ({ mcpServers: { agentstack: { type: 'http', url: 'https://agentstack.tech/mcp', ...fields } } });
const banner: AuditContext = { profile: 'agentstack', freshness: { mode: 'banner', why: 'no rebuild asked' } };
const SHIP_FIX = 'Ship mcp.json as {"mcpServers": {"agentstack": {"type": "http", "url": "https://…/mcp"}}}';

describe('the shipped mcp.json and manifest pointer', () => {
  it('pass on this plugin, each with its own words', () => {
    expect(mcpServersPointerRule(shipped)).toEqual({ id: 'manifest.mcpServers', status: 'PASS', summary: 'plugin.json "mcpServers" is the string "./mcp.json"' });
    expect(mcpHeadersRule(shipped)).toEqual({ id: 'mcp.no-headers', status: 'PASS', summary: 'the shipped agentstack entry is URL-only' });
    expect(mcpPlaceholderRule(shipped)).toEqual({ id: 'mcp.no-placeholders', status: 'PASS', summary: 'mcp.json has no ${...} placeholders' });
    expect(mcpUrlRule(shipped)).toEqual({ id: 'mcp.url', status: 'PASS', summary: 'mcp.json points at https://agentstack.tech/mcp' });
    expect(inlineMcpServersRule(shipped)).toEqual({ id: 'antipattern.inline-mcpServers', status: 'PASS', summary: 'no inline MCP servers in plugin.json' });
    expect(toolsMapRule(shipped)).toEqual({ id: 'antipattern.tools-map', status: 'PASS', summary: 'no server entry carries a "tools" map' });
  });

  it('"mcpServers" pointing elsewhere, missing, or inline', () => {
    const fix = 'Set "mcpServers": "./mcp.json" and keep the server in mcp.json';
    expect(mcpServersPointerRule(withManifest({ mcpServers: './servers.json' }))).toEqual({ id: 'manifest.mcpServers', status: 'FAIL', summary: 'plugin.json "mcpServers" is "./servers.json", not "./mcp.json"', fix });
    expect(mcpServersPointerRule(withManifest({ mcpServers: undefined })).summary).toBe('plugin.json "mcpServers" is null, not "./mcp.json"');
    expect(mcpServersPointerRule(withManifest({ mcpServers: `./${'x'.repeat(200)}.json` })).summary).toBe(`plugin.json "mcpServers" is ${`"./${'x'.repeat(200)}`.slice(0, 80)}, not "./mcp.json"`);
    expect(mcpServersPointerRule({ ...shipped, manifest: doc('.cursor-plugin/plugin.json', ['not', 'an object']) }).status).toBe('FAIL');
    const inline = withManifest({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp' } } });
    expect(inlineMcpServersRule(inline)).toEqual({ id: 'antipattern.inline-mcpServers', status: 'FAIL', summary: 'plugin.json declares MCP servers inline', fix: 'Move the server to mcp.json and point "mcpServers" at "./mcp.json"' });
    expect(inlineMcpServersRule(withManifest({ mcpServers: undefined })).status).toBe('PASS');
    expect(inlineMcpServersRule(withManifest({ mcpServers: ['./a.json'] })).status).toBe('FAIL');
    const unreadable = { ...shipped, manifest: { path: '.cursor-plugin/plugin.json', exists: true, error: 'Unexpected end' } };
    expect(inlineMcpServersRule(unreadable).status).toBe('PASS');
    expect(minClientVersionRule(unreadable).summary).toBe('plugin.json "minClientVersions.cursor" is null, not 3.13.0 or later');
  });

  it('no usable mcp.json or agentstack entry: every mcp rule says which', () => {
    for (const rule of [mcpHeadersRule, mcpPlaceholderRule, mcpUrlRule]) {
      const missing = rule({ ...shipped, mcpJson: { path: 'mcp.json', exists: false } });
      expect(missing).toEqual({ id: rule(shipped).id, status: 'FAIL', summary: 'mcp.json is missing', fix: SHIP_FIX });
      expect(rule({ ...shipped, mcpJson: { path: 'mcp.json', exists: true, error: 'Unexpected end' } }).summary).toBe('mcp.json is not valid JSON (Unexpected end)');
      for (const value of [{ mcpServers: { other: { url: 'https://x/mcp' } } }, { mcpServers: [] }, { mcpServers: { agentstack: 'https://x/mcp' } }]) {
        expect(rule(withMcp(value))).toMatchObject({ status: 'FAIL', summary: 'mcp.json has no "mcpServers.agentstack" entry', fix: 'Add the URL-only agentstack entry' });
      }
    }
    expect([mcpHeadersRule, mcpPlaceholderRule, mcpUrlRule].map((rule) => rule(withMcp({})).id)).toEqual(['mcp.no-headers', 'mcp.no-placeholders', 'mcp.url']);
  });

  it('headers, placeholders, a tools map', () => {
    expect(mcpHeadersRule(withMcp(entry({ headers: {} })))).toEqual({ id: 'mcp.no-headers', status: 'FAIL', summary: 'the shipped agentstack entry has "headers"', fix: 'Ship the entry URL-only; the sign-in writes the Bearer into ~/.cursor/mcp.json' });
    const placeholder = withMcp({ mcpServers: { ...entry({}).mcpServers, docs: { url: 'https://docs.example/${workspaceFolder}' } } });
    expect(mcpPlaceholderRule(placeholder)).toEqual({ id: 'mcp.no-placeholders', status: 'FAIL', summary: 'mcp.json contains a ${...} placeholder (an unset variable sends an empty Bearer)', fix: 'Remove the ${...} value' });
    expect(mcpPlaceholderRule(withMcp(entry({ note: 'costs ${} nothing' }))).status).toBe('FAIL');
    expect(mcpPlaceholderRule(withMcp(entry({ note: 'a $ and {braces} apart' }))).status).toBe('PASS');
    const tools = withMcp({ mcpServers: { ...entry({ tools: {} }).mcpServers, docs: { url: 'https://docs.example/mcp', tools: [] } } });
    expect(toolsMapRule(tools)).toEqual({ id: 'antipattern.tools-map', status: 'FAIL', summary: 'server entry with a "tools" map: mcp.json agentstack, mcp.json docs', fix: 'Delete "tools"; actions come from GET /mcp/actions' });
  });

  it('the url: https and ending in /mcp', () => {
    const fix = 'Use "https://agentstack.tech/mcp"';
    expect(mcpUrlRule(withMcp(entry({ url: 'http://agentstack.tech/mcp' })))).toEqual({ id: 'mcp.url', status: 'FAIL', summary: 'mcp.json "url" "http://agentstack.tech/mcp" is not an https URL ending in /mcp', fix });
    expect(mcpUrlRule(withMcp(entry({ url: 'https://agentstack.tech/mcp/tools' }))).status).toBe('FAIL');
    expect(mcpUrlRule(withMcp(entry({ url: 'https://agentstack.tech/api/mcp' }))).status).toBe('PASS');
    expect(mcpUrlRule(withMcp(entry({ url: 'x https://agentstack.tech/mcp' }))).status).toBe('FAIL');
    expect(mcpUrlRule(withMcp(entry({ url: 42 }))).summary).toBe('mcp.json "url" 42 is not an https URL ending in /mcp');
    expect(mcpUrlRule(withMcp(entry({ url: undefined }))).summary).toBe('mcp.json "url" null is not an https URL ending in /mcp');
    const long = `https://agentstack.tech/${'a'.repeat(200)}`;
    expect(mcpUrlRule(withMcp(entry({ url: long }))).summary).toBe(`mcp.json "url" ${JSON.stringify(long).slice(0, 100)} is not an https URL ending in /mcp`);
  });
});

describe('the anti-patterns', () => {
  const withAuth = (value: unknown, where: 'mcp' | 'manifest' | 'hooks' = 'mcp'): PluginFiles => {
    if (where === 'manifest') return withManifest({ extra: value });
    if (where === 'hooks') return { ...shipped, hooksJson: doc('hooks/hooks.json', value) };
    return withMcp(entry({ headers: value }));
  };

  it('a placeholder or empty Authorization anywhere in the manifest, mcp.json or hooks.json', () => {
    expect(placeholderAuthRule(shipped)).toEqual({ id: 'antipattern.placeholder-auth', status: 'PASS', summary: 'no placeholder Authorization header' });
    const fix = 'Remove it: an empty or placeholder Bearer is sent as is and looks signed in';
    expect(placeholderAuthRule(withAuth({ Authorization: 'Bearer YOUR_TOKEN' }))).toEqual({ id: 'antipattern.placeholder-auth', status: 'FAIL', summary: 'placeholder Authorization header in mcp.json', fix });
    for (const value of ['', '  ', 'Bearer', 'Bearer ', 'bearer ${env:TOKEN}', '<token>', 'Bearer <your token>', 'YOUR-KEY', 'your_api_key', 'AGENTSTACK_ACCESS_TOKEN', 'Token', 'xxx', 'XXXXX', 'changeme', ' Bearer  ${T} ']) {
      expect(placeholderAuthRule(withAuth({ Authorization: value })).status, JSON.stringify(value)).toBe('FAIL');
    }
    for (const value of ['Bearer eyJhbGciOiJIUzI1NiJ9.real', 'Bearer xx', 'Basic dXNlcjpwYXNz', 'Bearer TOKENS', 'my changeme', 'Bearer ${T} and more', '${A}${B}']) {
      expect(placeholderAuthRule(withAuth({ Authorization: value })).status, JSON.stringify(value)).toBe('PASS');
    }
    expect(placeholderAuthRule(withAuth({ authorization: 'Bearer' })).status).toBe('FAIL');
    expect(placeholderAuthRule(withAuth({ Authorization: 'YOURKEY' })).status).toBe('FAIL');
    // Only Authorization values are judged: an empty or placeholder-looking value of another header is not one.
    expect(placeholderAuthRule(withAuth({ 'X-Api-Key': '', 'X-Mode': 'TOKEN' })).status).toBe('PASS');
    // An Authorization that is not text is no header value: only text is judged.
    expect(placeholderAuthRule(withAuth({ Authorization: [] })).status).toBe('PASS');
    const both = { ...withAuth({ Authorization: 'Bearer' }), manifest: doc('.cursor-plugin/plugin.json', { name: 'agentstack', x: { Authorization: '<token>' } }) };
    expect(placeholderAuthRule(both).summary).toBe('placeholder Authorization header in .cursor-plugin/plugin.json, mcp.json');
    expect(placeholderAuthRule(withAuth({ AUTHORIZATION: 42 })).status).toBe('PASS');
    expect(placeholderAuthRule(withAuth([{ nested: { Authorization: 'Bearer ${X}' } }], 'manifest')).summary).toBe('placeholder Authorization header in .cursor-plugin/plugin.json');
    expect(placeholderAuthRule(withAuth({ hooks: { sessionStart: [{ env: { Authorization: '' } }] } }, 'hooks')).summary).toBe('placeholder Authorization header in hooks/hooks.json');
    expect(placeholderAuthRule({ ...shipped, hooksJson: null }).status).toBe('PASS');
  });

  it('a second tool name or the home-made Connect endpoint in the files the agent reads', () => {
    expect(secondToolRule(shipped)).toEqual({ id: 'antipattern.second-tool', status: 'PASS', summary: 'no second tool name (agentstack_execute) in the plugin surface' });
    expect(connectEndpointRule(shipped)).toEqual({ id: 'antipattern.connect-endpoint', status: 'PASS', summary: 'no native Connect endpoint (/mcp/.well-known/oauth-authorize)' });
    const surface = [{ path: 'commands/a.md', text: 'call agentstack_execute, see /mcp/.well-known/oauth-authorize' }, { path: 'rules/b.mdc', text: 'agentstack_execute /mcp/.well-known/oauth-authorize' }];
    const bad = { ...shipped, surface: [...shipped.surface, ...surface] };
    expect(secondToolRule(bad)).toEqual({ id: 'antipattern.second-tool', status: 'FAIL', summary: 'agentstack_execute appears as a tool in commands/a.md, rules/b.mdc', fix: 'Name only agentstack.execute: the server has exactly one tool' });
    expect(connectEndpointRule(bad)).toEqual({ id: 'antipattern.connect-endpoint', status: 'FAIL', summary: 'commands/a.md, rules/b.mdc use(s) /mcp/.well-known/oauth-authorize', fix: 'Let Connect use OAuth discovery (/.well-known/oauth-protected-resource/mcp)' });
  });
});

describe('bundles, the sign-in rule, the Cursor version', () => {
  it('bundle freshness by rebuild, by banner, or not known', () => {
    const id = 'bundles.fresh';
    expect(bundlesFreshRule({ ...shipped, bundles: [] }, banner)).toEqual({ id, status: 'FAIL', summary: 'no bundled scripts (.mjs, .cjs) under hooks/ or scripts/', fix: 'Run npm run build and ship the bundles' });
    expect(bundlesFreshRule(shipped, { profile: 'agentstack', freshness: { mode: 'error', message: 'esbuild missing' } })).toEqual({ id, status: 'FAIL', summary: 'could not rebuild the bundles: esbuild missing', fix: 'Run npm ci, then npm run build' });
    expect(bundlesFreshRule(shipped, { profile: 'agentstack', freshness: { mode: 'rebuilt', stale: ['a.cjs', 'b.mjs'] } })).toEqual({ id, status: 'FAIL', summary: 'stale bundle(s): a.cjs; b.mjs', fix: 'Run npm run build and commit the bundles with their sources' });
    expect(bundlesFreshRule(shipped, { profile: 'agentstack', freshness: { mode: 'rebuilt', stale: [] } })).toEqual({ id, status: 'PASS', summary: 'every bundle is byte-identical to a fresh build' });
    expect(bundlesFreshRule(shipped, banner)).toEqual({ id, status: 'PASS', summary: `no rebuild asked; ${shipped.bundles.length} bundle(s) carry the generated banner` });
    const stripped = { ...shipped, bundles: [...shipped.bundles, { path: 'scripts/hand.mjs', text: 'console.log(1)\n' }] };
    expect(bundlesFreshRule(stripped, banner)).toEqual({ id, status: 'FAIL', summary: 'bundle(s) without the generated banner: scripts/hand.mjs', fix: 'Ship only bundles produced by npm run build' });
  });

  it('the always-applied sign-in rule: named command, never a token, short', () => {
    const id = 'agent.sign-in-rule';
    const fix = `Ship rules/<name>.mdc with alwaysApply: true that says to run /agentstack-authorize and never to paste a token, under ${SIGN_IN_RULE_MAX_CHARS} characters`;
    const good = shipped.rules.find((r) => r.path.endsWith('agentstack-sign-in.mdc'))!;
    expect(signInRuleRule(shipped)).toEqual({ id, status: 'PASS', summary: `${good.path}: always applied, ${good.text.length} characters, names /agentstack-authorize` });
    const rule = (text: string) => signInRuleRule({ ...shipped, rules: [{ path: 'rules/s.mdc', text }] });
    const front = (body: string, always = 'true') => `---\ndescription: d\nalwaysApply: ${always}\n---\n${body}`;
    expect(rule(front('Run /agentstack-authorize. Never paste a token.', 'false'))).toEqual({ id, status: 'FAIL', summary: 'no always-applied rule names /agentstack-authorize', fix });
    expect(rule('Run /agentstack-authorize. Never paste a token.').status).toBe('FAIL');
    expect(rule(front('Run /sign-in. Never paste a token.')).summary).toBe('no always-applied rule names /agentstack-authorize');
    expect(rule(front('Run /agentstack-authorize. Be kind.'))).toEqual({ id, status: 'FAIL', summary: 'rules/s.mdc does not say never to ask for or paste a token', fix });
    expect(rule(front('Run /agentstack-authorize.\nNever.\nA token.')).status).toBe('FAIL');
    expect(rule(front('Run /agentstack-authorize. NEVER share the token.')).status).toBe('PASS');
    expect(rule(front('Run /agentstack-authorize. Never paste tokens.')).status).toBe('FAIL');
    const exact = front('Run /agentstack-authorize. Never paste a token.');
    const at = (n: number) => rule(exact + ' '.repeat(n - exact.length));
    expect(at(SIGN_IN_RULE_MAX_CHARS).status).toBe('PASS');
    expect(at(SIGN_IN_RULE_MAX_CHARS + 1)).toEqual({ id, status: 'FAIL', summary: `rules/s.mdc is ${SIGN_IN_RULE_MAX_CHARS + 1} characters (at most ${SIGN_IN_RULE_MAX_CHARS}: it is in every chat)`, fix });
    const two = signInRuleRule({ ...shipped, rules: [{ path: 'rules/a.mdc', text: front('Run /agentstack-authorize.') }, { path: 'rules/b.mdc', text: exact }] });
    expect(two.summary).toBe('rules/a.mdc does not say never to ask for or paste a token');
  });

  it('minClientVersions: Cursor 3.13 or later', () => {
    const id = 'manifest.minClientVersions';
    const fix = 'Set "minClientVersions": {"cursor": "3.13.0"}';
    const at = (cursor: unknown) => minClientVersionRule(withManifest({ minClientVersions: { cursor } }));
    expect(minClientVersionRule(shipped)).toEqual({ id, status: 'PASS', summary: 'plugin.json "minClientVersions" asks for Cursor 3.13.0' });
    for (const ok of ['3.13', '3.14.0', '4.0.0', '10.1']) expect(at(ok).status, ok).toBe('PASS');
    for (const old of ['3.12.99', '2.99.0', '3', '4', '', 'latest', '3.x']) expect(at(old).status, old).toBe('FAIL');
    expect(at('3.12.17')).toEqual({ id, status: 'FAIL', summary: 'plugin.json "minClientVersions.cursor" is "3.12.17", not 3.13.0 or later', fix });
    expect(at(313).summary).toBe('plugin.json "minClientVersions.cursor" is 313, not 3.13.0 or later');
    expect(minClientVersionRule(withManifest({ minClientVersions: undefined })).summary).toBe('plugin.json "minClientVersions.cursor" is null, not 3.13.0 or later');
    expect(minClientVersionRule(withManifest({ minClientVersions: '3.13.0' })).status).toBe('FAIL');
  });
});
