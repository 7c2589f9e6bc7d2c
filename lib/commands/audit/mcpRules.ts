/**
 * Generic rules over the MCP servers a plugin registers (its mcp.json files and inline servers in the manifest).
 * They apply only to a plugin that has any: the field is optional. Pure.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import { isBuiltinPlaceholder, placeholderNames, urlProblem } from './formats/interpolation.js';
import { authFindings } from './formats/mcpAuth.js';
import type { PluginFiles } from './readPlugin.js';
import { docProblem, list, manifestOf, verdict } from './rule.js';

/** Every server object, named `<file> <server>`, from the mcp.json files and inline in the manifest. */
export function serverEntries(p: PluginFiles): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  const collect = (where: string, servers: unknown) => {
    const items = Array.isArray(servers) ? servers.flatMap((s) => (isObject(s) ? Object.entries(s) : [])) : isObject(servers) ? Object.entries(servers) : [];
    for (const [name, entry] of items) out.push([`${where} ${name}`, isObject(entry) ? entry : {}]);
  };
  for (const doc of p.mcpDocs) if (isObject(doc.value)) collect(doc.path, doc.value.mcpServers);
  const inline = manifestOf(p)?.mcpServers;
  if (inline !== undefined && typeof inline !== 'string') collect('plugin.json', Array.isArray(inline) ? inline.filter(isObject) : inline);
  return out;
}

export const hasMcp = (p: PluginFiles) => p.mcpDocs.length > 0 || (manifestOf(p)?.mcpServers !== undefined);

export function mcpSchemaKeyRule(p: PluginFiles): Check {
  const id = 'mcp.no-$schema';
  const bad = p.mcpDocs.filter((d) => isObject(d.value) && '$schema' in d.value).map((d) => d.path);
  return bad.length
    ? fail(id, `${bad.join(', ')} has "$schema": Cursor then registers no server at all`, 'Delete the "$schema" key')
    : pass(id, 'no "$schema" in the MCP configuration');
}

/**
 * Each MCP file parses into {"mcpServers": {...}}, and each server has an http(s) `url` (placeholders filled: one that
 * starts with a variable takes its scheme from the person's value) or a `command`.
 */
export function mcpServersRule(p: PluginFiles): Check {
  const id = 'mcp.servers';
  const problems = p.mcpDocs.map((d) => docProblem(d) ?? (isObject((d.value as Record<string, unknown>).mcpServers) ? null : `${d.path} has no "mcpServers" object`))
    .filter((x): x is string => !!x);
  const servers = serverEntries(p);
  for (const [name, entry] of servers) {
    const { url, command } = entry;
    const badUrl = url === undefined ? null : urlProblem(url);
    if (badUrl) problems.push(`${name} "url" ${badUrl}`);
    else if (url === undefined && (typeof command !== 'string' || !command.trim())) problems.push(`${name} has neither "url" nor "command"`);
  }
  return problems.length
    ? fail(id, list(problems), 'Give each server {"url": "https://…"} (hosted) or {"command": "…"} (local)', { problems })
    : pass(id, `${servers.length} MCP server(s): ${list(servers.map(([n]) => n.split(' ').pop()!), 6)}`);
}

function declaredVariables(p: PluginFiles): Set<string> {
  const v = manifestOf(p)?.variables;
  if (!isObject(v)) return new Set();
  return new Set(Object.keys('type' in v || 'properties' in v ? (isObject(v.properties) ? v.properties : {}) : v));
}

/** A `${NAME}` in a field Cursor interpolates is Cursor's own (`${env:NAME}`, `${userHome}`…) or a declared variable. */
export function mcpVariablesRule(p: PluginFiles): Check {
  const id = 'mcp.variables';
  const known = declaredVariables(p);
  const used = new Set<string>();
  for (const [, entry] of serverEntries(p)) for (const name of placeholderNames(entry)) used.add(name);
  const undeclared = [...used].filter((n) => !isBuiltinPlaceholder(n) && !known.has(n));
  if (undeclared.length) {
    return warn(id, `\${${undeclared.join('}, ${')}} used in a server but not declared in plugin.json "variables"`, 'Declare each in "variables" so Cursor asks for it; an unset one is sent empty (an empty Bearer)');
  }
  return pass(id, used.size ? `${used.size} placeholder(s), each declared or built in` : 'no ${…} placeholders in the servers');
}

const withAuth = (p: PluginFiles) => serverEntries(p).filter(([, entry]) => entry.auth !== undefined);
export const hasAuth = (p: PluginFiles) => withAuth(p).length > 0;

/** Each `auth` block has the shape Cursor documents for a static OAuth client. */
export function mcpAuthRule(p: PluginFiles): Check {
  const found = { rejects: [] as string[], advice: [] as string[] };
  const servers = withAuth(p);
  for (const [name, entry] of servers) {
    const { rejects, advice } = authFindings(entry.auth, entry.url !== undefined);
    found.rejects.push(...rejects.map((r) => `${name} ${r}`));
    found.advice.push(...advice.map((a) => `${name} ${a}`));
  }
  return verdict('mcp.auth', found, {
    pass: `${servers.length} server(s) with "auth": CLIENT_ID a string, CLIENT_SECRET a string, scopes strings`,
    fix: 'Write "auth" as {"CLIENT_ID": "${MY_CLIENT_ID}", "CLIENT_SECRET": "${MY_CLIENT_SECRET}", "scopes": ["read"]} (only CLIENT_ID is required)',
    adviceFix: 'Keep only CLIENT_ID, CLIENT_SECRET and scopes in "auth", on a "url" server, with the secret as a ${VARIABLE}',
  });
}
