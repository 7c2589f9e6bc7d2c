/** The AgentStack bases a call's url is recognised by. */
import type { McpConfig } from '../mcpJson/credential.js';
import { readRefreshFile } from '../auth/refreshStore.js';
import { DEFAULT_BASE_URL, baseUrlFromMcpUrl, resolveBaseUrl } from './baseUrl.js';
import { MCP_SERVER_KEY } from './toolNames.js';

/**
 * The bases that identify AgentStack by url: the mcp.json entry's, AGENTSTACK_BASE_URL's (or the setting's), the
 * default, and `also` (the server the stored credential was issued for: it stays known when the entry is renamed).
 */
export function knownBaseUrls(config: McpConfig, env: NodeJS.ProcessEnv, also: readonly unknown[] = []): string[] {
  const bases = new Set<string>([DEFAULT_BASE_URL]);
  const servers = config.mcpServers as Record<string, { url?: unknown } | undefined> | undefined;
  for (const url of [servers?.[MCP_SERVER_KEY]?.url, ...also]) {
    const base = baseUrlFromMcpUrl(url);
    if (base) bases.add(base);
  }
  try {
    bases.add(resolveBaseUrl(env));
  } catch { /* an invalid AGENTSTACK_BASE_URL identifies nothing */ }
  return [...bases];
}

/** The MCP URL the stored refresh token was issued for (its `resource`), or null (none, unreadable). */
export function credentialResource(refreshPath: string): string | null {
  try {
    return readRefreshFile(refreshPath)?.resource ?? null;
  } catch {
    return null;
  }
}

