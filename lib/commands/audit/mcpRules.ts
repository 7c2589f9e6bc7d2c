/**
 * Generic rules over the MCP servers a plugin registers (its mcp.json files and inline servers in the manifest).
 * They apply only to a plugin that has any: the field is optional. Pure.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import type { PluginFiles } from './readPlugin.js';
import { docProblem, list, manifestOf } from './rule.js';

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

/** Each MCP file parses into {"mcpServers": {...}}, and each server has an http(s) `url` or a `command`. */
export function mcpServersRule(p: PluginFiles): Check {
  const id = 'mcp.servers';
  const problems = p.mcpDocs.map((d) => docProblem(d) ?? (isObject((d.value as Record<string, unknown>).mcpServers) ? null : `${d.path} has no "mcpServers" object`))
    .filter((x): x is string => !!x);
  const servers = serverEntries(p);
  for (const [name, entry] of servers) {
    const { url, command } = entry;
    if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url.replace(/\$\{[^}]*\}/g, 'x')))) problems.push(`${name} "url" must be an http(s) URL`);
    else if (url === undefined && (typeof command !== 'string' || !command.trim())) problems.push(`${name} has neither "url" nor "command"`);
  }
  return problems.length
    ? fail(id, list(problems), 'Give each server {"url": "https://…"} (hosted) or {"command": "…"} (local)', { problems })
    : pass(id, `${servers.length} MCP server(s): ${list(servers.map(([n]) => n.split(' ').pop()!), 6)}`);
}

/** Cursor's own interpolations; any other ${NAME} must be one of the plugin's declared variables. */
const BUILTIN_VARIABLE = /^(env:\w+|userHome|workspaceFolder|workspaceFolderBasename|pathSeparator|\/)$/;

function declaredVariables(p: PluginFiles): Set<string> {
  const v = manifestOf(p)?.variables;
  if (!isObject(v)) return new Set();
  return new Set(Object.keys('type' in v || 'properties' in v ? (isObject(v.properties) ? v.properties : {}) : v));
}

export function mcpVariablesRule(p: PluginFiles): Check {
  const id = 'mcp.variables';
  const known = declaredVariables(p);
  const used = new Set<string>();
  for (const [, entry] of serverEntries(p)) for (const m of JSON.stringify(entry).matchAll(/\$\{([^}]*)\}/g)) used.add(m[1]!);
  const undeclared = [...used].filter((n) => !BUILTIN_VARIABLE.test(n) && !known.has(n));
  if (undeclared.length) {
    return warn(id, `\${${undeclared.join('}, ${')}} used in a server but not declared in plugin.json "variables"`, 'Declare each in "variables" so Cursor asks for it; an unset one is sent empty (an empty Bearer)');
  }
  return pass(id, used.size ? `${used.size} placeholder(s), each declared or built in` : 'no ${…} placeholders in the servers');
}
