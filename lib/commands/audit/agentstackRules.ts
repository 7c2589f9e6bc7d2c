/**
 * AgentStack's own rules: the shipped `agentstack` entry (URL-only, https, no placeholders), the old plugin's five
 * anti-patterns, and bundle freshness. They run only in the AgentStack profile. Pure.
 */
import { fail, pass, type Check } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import { EXECUTE_TOOL_ALIAS, MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { bannerEntry } from './bundleRules.js';
import { serverEntries } from './mcpRules.js';
import type { PluginFiles } from './readPlugin.js';
import { docProblem, list, manifestOf, type AuditContext } from './rule.js';
import { parseFrontmatter } from './formats/frontmatter.js';

export function mcpServersPointerRule(p: PluginFiles): Check {
  const id = 'manifest.mcpServers';
  const value = manifestOf(p)?.mcpServers;
  return value === './mcp.json'
    ? pass(id, 'plugin.json "mcpServers" is the string "./mcp.json"')
    : fail(id, `plugin.json "mcpServers" is ${JSON.stringify(value ?? null).slice(0, 80)}, not "./mcp.json"`, 'Set "mcpServers": "./mcp.json" and keep the server in mcp.json');
}

/** The AgentStack entry of the shipped mcp.json, or a failing Check when there is none. */
function shippedEntry(p: PluginFiles, id: string): { doc: Record<string, unknown>; entry: Record<string, unknown> } | Check {
  const broken = docProblem(p.mcpJson);
  if (broken) return fail(id, broken, 'Ship mcp.json as {"mcpServers": {"agentstack": {"type": "http", "url": "https://…/mcp"}}}');
  const doc = p.mcpJson.value as Record<string, unknown>;
  const entry = isObject(doc.mcpServers) ? doc.mcpServers[MCP_SERVER_KEY] : undefined;
  if (!isObject(entry)) return fail(id, `mcp.json has no "mcpServers.${MCP_SERVER_KEY}" entry`, 'Add the URL-only agentstack entry');
  return { doc, entry };
}

const mcpRule = (id: string, judge: (doc: Record<string, unknown>, entry: Record<string, unknown>) => Check) => (p: PluginFiles): Check => {
  const found = shippedEntry(p, id);
  return 'status' in found ? found : judge(found.doc, found.entry);
};

export const mcpHeadersRule = mcpRule('mcp.no-headers', (_doc, entry) => ('headers' in entry
  ? fail('mcp.no-headers', 'the shipped agentstack entry has "headers"', 'Ship the entry URL-only; the sign-in writes the Bearer into ~/.cursor/mcp.json')
  : pass('mcp.no-headers', 'the shipped agentstack entry is URL-only')));

export const mcpPlaceholderRule = mcpRule('mcp.no-placeholders', (doc) => (/\$\{[^}]*\}/.test(JSON.stringify(doc))
  ? fail('mcp.no-placeholders', 'mcp.json contains a ${...} placeholder (an unset variable sends an empty Bearer)', 'Remove the ${...} value')
  : pass('mcp.no-placeholders', 'mcp.json has no ${...} placeholders')));

export const mcpUrlRule = mcpRule('mcp.url', (_doc, entry) => {
  const url = entry.url;
  return typeof url === 'string' && url.startsWith('https://') && /\/mcp$/.test(url)
    ? pass('mcp.url', `mcp.json points at ${url}`)
    : fail('mcp.url', `mcp.json "url" ${JSON.stringify(url ?? null).slice(0, 100)} is not an https URL ending in /mcp`, 'Use "https://agentstack.tech/mcp"');
});

/** Anti-pattern: server objects inline in the manifest register twice or not at all. */
export function inlineMcpServersRule(p: PluginFiles): Check {
  const id = 'antipattern.inline-mcpServers';
  const value = manifestOf(p)?.mcpServers;
  return value !== undefined && typeof value !== 'string'
    ? fail(id, 'plugin.json declares MCP servers inline', 'Move the server to mcp.json and point "mcpServers" at "./mcp.json"')
    : pass(id, 'no inline MCP servers in plugin.json');
}

/** Anti-pattern: a `tools` map copied into the server entry (the action list belongs to GET /mcp/actions). */
export function toolsMapRule(p: PluginFiles): Check {
  const id = 'antipattern.tools-map';
  const fat = serverEntries(p).filter(([, e]) => 'tools' in e).map(([n]) => n);
  return fat.length
    ? fail(id, `server entry with a "tools" map: ${fat.join(', ')}`, 'Delete "tools"; actions come from GET /mcp/actions')
    : pass(id, 'no server entry carries a "tools" map');
}

const PLACEHOLDER_AUTH = /^\s*(Bearer\s*)?(\$\{[^}]*\}|<[^>]*>|YOUR[_-]?\w*|AGENTSTACK_ACCESS_TOKEN|TOKEN|xxx+|changeme)?\s*$/i;

function authorizationValues(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) authorizationValues(v, out);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k.toLowerCase() === 'authorization' && typeof v === 'string') out.push(v);
      else authorizationValues(v, out);
    }
  }
  return out;
}

/** Anti-pattern: an Authorization header with a placeholder or empty value shipped in a plugin file. */
export function placeholderAuthRule(p: PluginFiles): Check {
  const id = 'antipattern.placeholder-auth';
  const docs = [p.manifest, ...p.mcpDocs, ...(p.hooksJson ? [p.hooksJson] : [])];
  const bad = docs.filter((d) => authorizationValues(d.value).some((v) => PLACEHOLDER_AUTH.test(v))).map((d) => d.path);
  return bad.length
    ? fail(id, `placeholder Authorization header in ${bad.join(', ')}`, 'Remove it: an empty or placeholder Bearer is sent as is and looks signed in')
    : pass(id, 'no placeholder Authorization header');
}

/** Anti-pattern: the alias registered or advertised as a second tool (Cursor then shows two, or drops one). */
export function secondToolRule(p: PluginFiles): Check {
  const id = 'antipattern.second-tool';
  const hits = p.surface.filter((t) => t.text.includes(EXECUTE_TOOL_ALIAS)).map((t) => t.path);
  return hits.length
    ? fail(id, `${EXECUTE_TOOL_ALIAS} appears as a tool in ${hits.join(', ')}`, 'Name only agentstack.execute: the server has exactly one tool')
    : pass(id, `no second tool name (${EXECUTE_TOOL_ALIAS}) in the plugin surface`);
}

const CONNECT_ANTIPATTERN = '/mcp/.well-known/oauth-authorize';

/** Anti-pattern: a home-made Connect endpoint; Cursor's Connect uses RFC 9728 and RFC 8414 discovery. */
export function connectEndpointRule(p: PluginFiles): Check {
  const id = 'antipattern.connect-endpoint';
  const hits = p.surface.filter((t) => t.text.includes(CONNECT_ANTIPATTERN)).map((t) => t.path);
  return hits.length
    ? fail(id, `${hits.join(', ')} use(s) ${CONNECT_ANTIPATTERN}`, 'Let Connect use OAuth discovery (/.well-known/oauth-protected-resource/mcp)')
    : pass(id, `no native Connect endpoint (${CONNECT_ANTIPATTERN})`);
}

export function bundlesFreshRule(p: PluginFiles, { freshness }: AuditContext): Check {
  const id = 'bundles.fresh';
  if (!p.bundles.length) return fail(id, 'no bundled scripts (.mjs, .cjs) under hooks/ or scripts/', 'Run npm run build and ship the bundles');
  if (freshness.mode === 'error') return fail(id, `could not rebuild the bundles: ${freshness.message}`, 'Run npm ci, then npm run build');
  if (freshness.mode === 'rebuilt') {
    return freshness.stale.length
      ? fail(id, `stale bundle(s): ${list(freshness.stale)}`, 'Run npm run build and commit the bundles with their sources')
      : pass(id, 'every bundle is byte-identical to a fresh build');
  }
  const noBanner = p.bundles.filter((b) => !bannerEntry(b.text)).map((b) => b.path);
  return noBanner.length
    ? fail(id, `bundle(s) without the generated banner: ${list(noBanner)}`, 'Ship only bundles produced by npm run build')
    : pass(id, `${freshness.why}; ${p.bundles.length} bundle(s) carry the generated banner`);
}

/** The rule the agent always reads is injected into every chat: it stays this short. */
export const SIGN_IN_RULE_MAX_CHARS = 1_200;

/**
 * The always-applied rule that tells the agent what to do when AgentStack's tools are missing or unauthorized:
 * Cursor may drop the session card, and a rule is injected whether or not any hook ran.
 */
export function signInRuleRule(p: PluginFiles): Check {
  const id = 'agent.sign-in-rule';
  const fix = `Ship rules/<name>.mdc with alwaysApply: true that says to run /agentstack-authorize and never to paste a token, under ${SIGN_IN_RULE_MAX_CHARS} characters`;
  const always = p.rules.filter((r) => {
    const front = parseFrontmatter(r.text);
    return front.kind === 'ok' && front.fields.alwaysApply === true && r.text.includes('/agentstack-authorize');
  });
  if (!always.length) return fail(id, 'no always-applied rule names /agentstack-authorize', fix);
  const rule = always[0]!;
  if (rule.text.length > SIGN_IN_RULE_MAX_CHARS) return fail(id, `${rule.path} is ${rule.text.length} characters (at most ${SIGN_IN_RULE_MAX_CHARS}: it is in every chat)`, fix);
  if (!/never[^.\n]*\btoken\b/i.test(rule.text)) return fail(id, `${rule.path} does not say never to ask for or paste a token`, fix);
  return pass(id, `${rule.path}: always applied, ${rule.text.length} characters, names /agentstack-authorize`);
}

/** Cursor 3.13: the plugin hook contract (hooks from the manifest, ${CURSOR_PLUGIN_ROOT}) Cursor's own plugins declare. */
const MIN_CURSOR = [3, 13] as const;

/** The oldest Cursor whose hook contract the plugin relies on is declared, so an older one does not install it. */
export function minClientVersionRule(p: PluginFiles): Check {
  const id = 'manifest.minClientVersions';
  const declared = manifestOf(p)?.minClientVersions;
  const cursor = isObject(declared) ? declared.cursor : undefined;
  const parts = typeof cursor === 'string' ? cursor.split('.').map(Number) : [];
  const atLeast = parts.length >= 2 && (parts[0]! > MIN_CURSOR[0] || (parts[0] === MIN_CURSOR[0] && parts[1]! >= MIN_CURSOR[1]));
  return atLeast
    ? pass(id, `plugin.json "minClientVersions" asks for Cursor ${cursor}`)
    : fail(id, `plugin.json "minClientVersions.cursor" is ${JSON.stringify(cursor ?? null)}, not ${MIN_CURSOR.join('.')}.0 or later`, `Set "minClientVersions": {"cursor": "${MIN_CURSOR.join('.')}.0"}`);
}
