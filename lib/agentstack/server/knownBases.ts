/** The AgentStack bases a call's url is recognised by. */
import type { McpConfig } from '../mcpJson/credential.js';
import { readRefreshFile } from '../auth/refreshStore.js';
import { DEFAULT_BASE_URL, baseUrlFromMcpUrl, resolveBaseUrl } from './baseUrl.js';
import { MCP_SERVER_KEY } from './toolNames.js';
import { readWebUrl } from '../../platform/net/webUrl.js';

/**
 * The bases that identify AgentStack by url: the mcp.json entry's, AGENTSTACK_BASE_URL's (or the setting's), the
 * default, and `also` (the server the stored credential was issued for, its MCP URL or its origin: it stays known
 * when the entry is renamed).
 */
export function knownBaseUrls(config: McpConfig, env: NodeJS.ProcessEnv, also: readonly unknown[] = []): string[] {
  const bases = new Set<string>([DEFAULT_BASE_URL]);
  const servers = config.mcpServers as Record<string, { url?: unknown } | undefined> | undefined;
  const entryBase = baseUrlFromMcpUrl(servers?.[MCP_SERVER_KEY]?.url);
  if (entryBase) bases.add(entryBase);
  for (const resource of also) {
    const base = baseUrlFromMcpUrl(resource) ?? originResourceBase(resource);
    if (base) bases.add(base);
  }
  try {
    bases.add(resolveBaseUrl(env));
  } catch { /* an invalid AGENTSTACK_BASE_URL identifies nothing */ }
  return [...bases];
}

/**
 * A resource that names the server's origin (RFC 9728 metadata at the root location) was issued for `<origin>/mcp`:
 * the origin is the base. Read as a WebUrl: a resource that is not one identifies nothing.
 */
function originResourceBase(resource: unknown): string | null {
  const read = readWebUrl(resource);
  return read.ok && read.parsed.pathname === '/' && !read.parsed.search ? read.parsed.origin : null;
}

/** The MCP URL the stored refresh token was issued for (its `resource`), or null (none, unreadable). */
export function credentialResource(refreshPath: string): string | null {
  try {
    return readRefreshFile(refreshPath)?.resource ?? null;
  } catch {
    return null;
  }
}

