/**
 * Signing out in mcp.json, as a pure transform: the `agentstack` entry loses its credentials (the `Authorization`
 * and `X-API-Key` headers) and keeps everything else (`type`, `url`, the project header, any other key), so Connect
 * and a later sign-in still work. Every other server and top-level key is left as it is.
 */
import { isObject } from '../../platform/text/isObject.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import type { McpConfig, McpConfigUpdate } from './entry.js';

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key']);

export function withoutCredentials(config: McpConfig): McpConfigUpdate {
  const servers = config.mcpServers;
  const entry = isObject(servers) ? servers[MCP_SERVER_KEY] : undefined;
  if (!isObject(servers) || !isObject(entry) || !isObject(entry.headers)) return { config, changed: false };
  const kept = Object.entries(entry.headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase()));
  if (kept.length === Object.keys(entry.headers).length) return { config, changed: false };
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key !== 'headers') next[key] = value;
    else if (kept.length) next[key] = Object.fromEntries(kept);
  }
  return { config: { ...config, mcpServers: { ...servers, [MCP_SERVER_KEY]: next } }, changed: true };
}
