/**
 * Audit rules over the plugin's JSON documents (manifest, package.json, CHANGELOG, mcp.json). Pure: each takes the
 * files read by readPluginFiles and returns one Check. Schema facts live in pluginRules.ts.
 */
import { fail, pass, type Check } from '../../platform/report.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { checkManifest } from './pluginRules.js';
import type { JsonDoc, PluginFiles } from './readPlugin.js';
import { isObject } from '../../platform/text/isObject.js';

const list = (problems: string[]) => problems.join('; ');

function docProblem(doc: JsonDoc): string | null {
  if (!doc.exists) return `${doc.path} is missing`;
  if (doc.error) return `${doc.path} is not valid JSON (${doc.error})`;
  if (!isObject(doc.value)) return `${doc.path} is not a JSON object`;
  return null;
}

const manifestOf = (p: PluginFiles) => (isObject(p.manifest.value) ? p.manifest.value : null);
const NAME_OR_POINTER = /plugin\.json "(name|mcpServers|logo)" /;

export function manifestKeysRule(p: PluginFiles): Check {
  const id = 'manifest.keys';
  const broken = docProblem(p.manifest);
  if (broken) return fail(id, broken, 'Create .cursor-plugin/plugin.json with at least {"name": "<kebab-case>"}');
  const problems = checkManifest(p.manifest.value).filter((m) => !NAME_OR_POINTER.test(m));
  return problems.length
    ? fail(id, list(problems), "Remove or fix the keys Cursor's plugin schema rejects", { problems })
    : pass(id, "plugin.json keys are all in Cursor's plugin schema");
}

export function manifestNameRule(p: PluginFiles): Check {
  const id = 'manifest.name';
  const name = manifestOf(p)?.name;
  const bad = checkManifest(manifestOf(p) ?? {}).some((m) => m.startsWith('plugin.json "name"'));
  return bad
    ? fail(id, `plugin.json "name" ${JSON.stringify(name ?? null)} is not lowercase kebab-case`, 'Use a name like "agentstack"')
    : pass(id, `plugin name "${String(name)}" is kebab-case`);
}

export function versionsRule(p: PluginFiles): Check {
  const id = 'versions';
  const version = manifestOf(p)?.version;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(version)) {
    return fail(id, 'plugin.json has no semantic "version"', 'Set "version" in plugin.json (e.g. "0.5.0")');
  }
  const problems: string[] = [];
  const pkgVersion = isObject(p.packageJson.value) ? p.packageJson.value.version : undefined;
  if (p.packageJson.exists && pkgVersion !== version) problems.push(`package.json says ${JSON.stringify(pkgVersion ?? null)}`);
  if (p.changelog === null) problems.push('there is no CHANGELOG.md');
  else if (!p.changelog.includes(`## [${version}]`)) problems.push(`CHANGELOG.md has no "## [${version}]" section`);
  return problems.length
    ? fail(id, `plugin.json is ${version} but ${list(problems)}`, 'Bump every version together and add the CHANGELOG section')
    : pass(id, `version ${version} agrees in plugin.json${p.packageJson.exists ? ', package.json' : ''} and CHANGELOG.md`);
}

export function mcpServersPointerRule(p: PluginFiles): Check {
  const id = 'manifest.mcpServers';
  const value = manifestOf(p)?.mcpServers;
  return value === './mcp.json'
    ? pass(id, 'plugin.json "mcpServers" is the string "./mcp.json"')
    : fail(id, `plugin.json "mcpServers" is ${JSON.stringify(value ?? null).slice(0, 80)}, not "./mcp.json"`, 'Set "mcpServers": "./mcp.json" and keep the server in mcp.json');
}

/** Anti-pattern: server objects inline in the manifest register twice or not at all. */
export function inlineMcpServersRule(p: PluginFiles): Check {
  const id = 'antipattern.inline-mcpServers';
  const value = manifestOf(p)?.mcpServers;
  return value !== undefined && typeof value !== 'string'
    ? fail(id, 'plugin.json declares MCP servers inline', 'Move the server to mcp.json and point "mcpServers" at "./mcp.json"')
    : pass(id, 'no inline MCP servers in plugin.json');
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

export const mcpSchemaKeyRule = mcpRule('mcp.no-$schema', (doc) => ('$schema' in doc
  ? fail('mcp.no-$schema', 'mcp.json has "$schema": Cursor then registers no server at all', 'Delete the "$schema" key')
  : pass('mcp.no-$schema', 'mcp.json has no "$schema"')));

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

/** Every server object in mcp.json and inline in the manifest. */
function serverEntries(p: PluginFiles): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  const collect = (where: string, servers: unknown) => {
    const items = Array.isArray(servers) ? servers.flatMap((s) => (isObject(s) ? Object.entries(s) : [])) : isObject(servers) ? Object.entries(servers) : [];
    for (const [name, entry] of items) if (isObject(entry)) out.push([`${where} ${name}`, entry]);
  };
  if (isObject(p.mcpJson.value)) collect(p.mcpJson.path, p.mcpJson.value.mcpServers);
  const inline = manifestOf(p)?.mcpServers;
  if (inline !== undefined && typeof inline !== 'string') collect('plugin.json', inline);
  return out;
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
  const docs = [p.manifest, p.mcpJson, ...(p.hooksJson ? [p.hooksJson] : [])];
  const bad = docs.filter((d) => authorizationValues(d.value).some((v) => PLACEHOLDER_AUTH.test(v))).map((d) => d.path);
  return bad.length
    ? fail(id, `placeholder Authorization header in ${bad.join(', ')}`, 'Remove it: an empty or placeholder Bearer is sent as is and looks signed in')
    : pass(id, 'no placeholder Authorization header');
}
