/**
 * Where verify-mcp-surface-e2e gets its Bearer: `--token-env NAME`, else the agentstack entry of ~/.cursor/mcp.json
 * (read only; a missing or broken file is a WARN, not a crash). The mcp.json token is only used when that entry
 * points at the server being verified: a user's token never travels to another host because of --base-url.
 */
import { baseUrlFromMcpUrl } from '../../agentstack/server/baseUrl.js';
import { isPluginError } from '../../platform/errors.js';
import { bearerOf } from '../../agentstack/mcpJson/credential.js';
import { readMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { pass, warn, type Check } from '../../platform/report.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';

export interface BearerChoice {
  bearer?: string;
  check: Check;
}

const ID = 'config.bearer';

export function bearerFromEnv(name: string, env: NodeJS.ProcessEnv): BearerChoice {
  const raw = env[name]?.trim().replace(/^Bearer\s+/i, '');
  if (!raw) return { check: warn(ID, `--token-env ${name}: the variable is empty or unset; probing without a Bearer`, `export ${name}=<access token>`) };
  return { bearer: raw, check: pass(ID, `Bearer from $${name}`) };
}

export function bearerFromMcpJson(path: string, baseUrl: string): BearerChoice {
  let config;
  try {
    config = readMcpConfigFile(path);
  } catch (error) {
    const why = isPluginError(error) ? error.message : `${path} could not be read`;
    return { check: warn(ID, `${why}; probing without a Bearer`, 'fix the file, or pass --token-env NAME') };
  }
  if (config.text === null) return { check: warn(ID, `no ${path}; probing without a Bearer`, 'sign in first, or pass --token-env NAME') };
  const servers = config.config.mcpServers as Record<string, { url?: unknown }> | undefined;
  const entry = servers?.[MCP_SERVER_KEY];
  if (!entry) return { check: warn(ID, `${path} has no "${MCP_SERVER_KEY}" entry; probing without a Bearer`, 'sign in first, or pass --token-env NAME') };
  const bearer = bearerOf(config.config);
  if (!bearer) return { check: warn(ID, `the "${MCP_SERVER_KEY}" entry in ${path} has no real Bearer (missing or a placeholder); probing without one`, 'sign in again, or pass --token-env NAME') };
  const entryBase = baseUrlFromMcpUrl(entry.url);
  if (entryBase !== baseUrl) {
    return { check: warn(ID, `the "${MCP_SERVER_KEY}" entry points at ${entryBase ?? 'another URL'}, not ${baseUrl}; its Bearer is not sent elsewhere`, 'pass --token-env NAME for this server') };
  }
  return { bearer, check: pass(ID, `Bearer from the "${MCP_SERVER_KEY}" entry of ${path}`) };
}
