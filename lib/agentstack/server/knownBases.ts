/** The AgentStack bases a call's url is recognised by. */
import type { McpConfig } from '../mcpJson/credential.js';
import { readMcpConfigFile } from '../mcpJson/file.js';
import { DEFAULT_BASE_URL, baseUrlFromMcpUrl, resolveBaseUrl } from './baseUrl.js';
import { MCP_SERVER_KEY } from './toolNames.js';

/** The bases that identify AgentStack by url: the mcp.json entry's, AGENTSTACK_BASE_URL's (or the setting's), the default. */
export function knownBaseUrls(config: McpConfig, env: NodeJS.ProcessEnv): string[] {
  const bases = new Set<string>([DEFAULT_BASE_URL]);
  const servers = config.mcpServers as Record<string, { url?: unknown } | undefined> | undefined;
  const fromEntry = baseUrlFromMcpUrl(servers?.[MCP_SERVER_KEY]?.url);
  if (fromEntry) bases.add(fromEntry);
  try {
    bases.add(resolveBaseUrl(env));
  } catch { /* an invalid AGENTSTACK_BASE_URL identifies nothing */ }
  return [...bases];
}

/** The same, with the entry read from `mcpJsonPath` (an unreadable file is one log line, and no entry). */
export function knownBaseUrlsOnDisk(mcpJsonPath: string, env: NodeJS.ProcessEnv, log: (message: string) => void): string[] {
  let config: McpConfig = {};
  try {
    config = readMcpConfigFile(mcpJsonPath).config;
  } catch (error) {
    log(`cannot read ${mcpJsonPath}: ${(error as Error).message}`);
  }
  return knownBaseUrls(config, env);
}
