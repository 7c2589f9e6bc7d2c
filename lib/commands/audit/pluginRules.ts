/**
 * Pure checks of a plugin's three JSON documents against Cursor's plugin schema (cursor/plugins,
 * schemas/plugin.schema.json) and AgentStack's own rules. Each returns the problems found, worded for a person.
 */
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { isObject } from '../../platform/text/isObject.js';

/** The keys Cursor's manifest schema accepts; it rejects any other (additionalProperties: false). */
export const MANIFEST_KEYS = [
  'name', 'displayName', 'description', 'version', 'author', 'publisher', 'homepage', 'repository', 'license', 'logo',
  'keywords', 'category', 'tags', 'minClientVersions', 'commands', 'agents', 'skills', 'rules', 'hooks', 'variables', 'mcpServers',
] as const;

const isStringOrStrings = (v: unknown) => typeof v === 'string' || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
const PLACEHOLDER = /\$\{[^}]*\}/;

export function checkManifest(manifest: unknown): string[] {
  if (!isObject(manifest)) return ['plugin.json is not a JSON object'];
  const problems: string[] = [];
  for (const key of Object.keys(manifest)) {
    if (!(MANIFEST_KEYS as readonly string[]).includes(key)) problems.push(`plugin.json has key "${key}", which Cursor's schema rejects`);
  }
  const { name, author, mcpServers, hooks, logo } = manifest;
  if (typeof name !== 'string' || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) problems.push('plugin.json "name" must be lowercase kebab-case');
  if (author !== undefined) {
    if (!isObject(author) || typeof author.name !== 'string' || !author.name) problems.push('plugin.json "author" must be {name, email}');
    else for (const k of Object.keys(author)) if (k !== 'name' && k !== 'email') problems.push(`plugin.json author.${k} is rejected by Cursor (only name and email)`);
  }
  for (const key of ['commands', 'agents', 'skills', 'rules'] as const) {
    if (manifest[key] !== undefined && !isStringOrStrings(manifest[key])) problems.push(`plugin.json "${key}" must be a path or a list of paths`);
  }
  if (mcpServers !== './mcp.json') problems.push('plugin.json "mcpServers" must be the string "./mcp.json" (inline servers register twice or not at all)');
  if (hooks !== undefined && typeof hooks !== 'string') problems.push('plugin.json "hooks" should be a path to hooks/hooks.json');
  for (const key of ['logo', 'hooks', 'commands'] as const) {
    const v = manifest[key];
    if (typeof v === 'string' && (v.includes('..') || v.startsWith('/'))) problems.push(`plugin.json "${key}" must be a relative path without ".."`);
  }
  if (logo !== undefined && (typeof logo !== 'string' || !/\.png$/i.test(logo))) problems.push('plugin.json "logo" should be a PNG (SVG renders blank in Cursor)');
  return problems;
}

/** The plugin's own mcp.json: what a person's Connect click uses. URL-only. */
export function checkShippedMcpJson(doc: unknown): string[] {
  if (!isObject(doc)) return ['mcp.json is not a JSON object'];
  const problems: string[] = [];
  if ('$schema' in doc) problems.push('mcp.json has "$schema": Cursor then registers no server at all');
  const servers = doc.mcpServers;
  if (!isObject(servers)) return [...problems, 'mcp.json has no "mcpServers" object'];
  const entry = servers[MCP_SERVER_KEY];
  if (!isObject(entry)) return [...problems, `mcp.json has no "${MCP_SERVER_KEY}" server`];
  if ('headers' in entry) problems.push('mcp.json entry has "headers": the shipped entry must be URL-only (no Authorization)');
  if ('tools' in entry) problems.push('mcp.json entry has a "tools" map: actions come from GET /mcp/actions');
  if (PLACEHOLDER.test(JSON.stringify(doc))) problems.push('mcp.json contains a ${...} placeholder (an unset variable sends an empty Bearer)');
  const url = entry.url;
  if (typeof url !== 'string' || !url.startsWith('https://') || !/\/mcp\/?$/.test(url)) problems.push('mcp.json "url" must be an https URL ending in /mcp');
  for (const [name, other] of Object.entries(servers)) {
    if (name !== MCP_SERVER_KEY && isObject(other) && typeof other.url === 'string' && /agentstack/i.test(other.url)) {
      problems.push(`mcp.json registers AgentStack twice ("${name}")`);
    }
  }
  return problems;
}

export interface HookCommandRef {
  event: string;
  command: string;
  /** The script path with ${CURSOR_PLUGIN_ROOT}/ removed, when the command is anchored there. */
  script: string | null;
}

/** hooks.json: every command anchored at ${CURSOR_PLUGIN_ROOT} with an explicit timeout. */
export function checkHooksJson(doc: unknown): { problems: string[]; commands: HookCommandRef[] } {
  const problems: string[] = [];
  const commands: HookCommandRef[] = [];
  if (!isObject(doc) || !isObject(doc.hooks)) return { problems: ['hooks.json must be {"version": 1, "hooks": {...}}'], commands };
  if (doc.version !== 1) problems.push('hooks.json "version" must be 1');
  for (const [event, list] of Object.entries(doc.hooks)) {
    if (!Array.isArray(list)) { problems.push(`hooks.json "${event}" must be a list`); continue; }
    for (const hook of list) {
      if (!isObject(hook) || typeof hook.command !== 'string') { problems.push(`hooks.json "${event}" has an entry without a command`); continue; }
      if (typeof hook.timeout !== 'number' || hook.timeout <= 0) problems.push(`hooks.json "${event}" has no timeout`);
      const match = /\$\{CURSOR_PLUGIN_ROOT\}\/([^"\s]+)/.exec(hook.command);
      if (!match) problems.push(`hooks.json "${event}" command is not anchored at \${CURSOR_PLUGIN_ROOT} (relative paths fail with exit 127)`);
      commands.push({ event, command: hook.command, script: match ? match[1]! : null });
    }
  }
  return { problems, commands };
}
