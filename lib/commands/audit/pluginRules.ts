/**
 * AgentStack's own plugin, checked whole (the plugin tests use these): Cursor's manifest schema plus AgentStack's
 * rules for the manifest, the shipped mcp.json and hooks.json. Each returns the problems found, worded for a person.
 */
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { isObject } from '../../platform/text/isObject.js';
import { readHooks, type HookCommand } from './formats/hooksFile.js';
import { fieldProblems, nameProblem, unknownKeys } from './formats/manifestSchema.js';

export function checkManifest(manifest: unknown): string[] {
  if (!isObject(manifest)) return ['plugin.json is not a JSON object'];
  const problems = unknownKeys(manifest).map((key) => `plugin.json has key "${key}", which Cursor's schema rejects`);
  const name = nameProblem(manifest);
  if (name) problems.push(`plugin.json ${name}`);
  problems.push(...fieldProblems(manifest).map((f) => `plugin.json ${f.message}`));
  const { mcpServers, hooks, logo } = manifest;
  if (mcpServers !== './mcp.json') problems.push('plugin.json "mcpServers" must be the string "./mcp.json" (inline servers register twice or not at all)');
  if (hooks !== undefined && typeof hooks !== 'string') problems.push('plugin.json "hooks" should be a path to hooks/hooks.json');
  for (const key of ['logo', 'hooks', 'commands'] as const) {
    const v = manifest[key];
    if (typeof v === 'string' && (v.includes('..') || v.startsWith('/'))) problems.push(`plugin.json "${key}" must be a relative path without ".."`);
  }
  if (logo !== undefined && (typeof logo !== 'string' || !/\.png$/i.test(logo))) problems.push('plugin.json "logo" should be a PNG (SVG with gradients renders blank in Cursor)');
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
  if (/\$\{[^}]*\}/.test(JSON.stringify(doc))) problems.push('mcp.json contains a ${...} placeholder (an unset variable sends an empty Bearer)');
  const url = entry.url;
  if (typeof url !== 'string' || !url.startsWith('https://') || !/\/mcp\/?$/.test(url)) problems.push('mcp.json "url" must be an https URL ending in /mcp');
  for (const [name, other] of Object.entries(servers)) {
    if (name !== MCP_SERVER_KEY && isObject(other) && typeof other.url === 'string' && /agentstack/i.test(other.url)) {
      problems.push(`mcp.json registers AgentStack twice ("${name}")`);
    }
  }
  return problems;
}

/** hooks.json as AgentStack ships it: every command anchored at ${CURSOR_PLUGIN_ROOT} with an explicit timeout. */
export function checkHooksJson(doc: unknown): { problems: string[]; commands: HookCommand[] } {
  const { problems, commands } = readHooks(doc);
  for (const c of commands) {
    if (c.timeout === null) problems.push(`hooks.json "${c.event}" has no timeout`);
    if (!c.anchored) problems.push(`hooks.json "${c.event}" command is not anchored at \${CURSOR_PLUGIN_ROOT} (relative paths fail with exit 127)`);
  }
  return { problems, commands };
}
