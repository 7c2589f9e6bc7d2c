/**
 * Where verify-mcp-surface-e2e gets its Bearer: `--token-env NAME`, else the agentstack entry of ~/.cursor/mcp.json
 * (read only; a missing or broken file is a WARN, not a crash). The mcp.json token is only used when that entry
 * points at the server being verified: a user's token never travels to another host because of --base-url.
 */
import { baseUrlFromMcpUrl, mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { bearerRefused, type ProbeReport } from '../../agentstack/probe/probe.js';
import { recordRefusal } from '../../agentstack/snapshot/refusal.js';
import { bearerOf } from '../../agentstack/mcpJson/credential.js';
import { readMcpState } from '../../agentstack/state/read.js';
import { pass, warn, type Check } from '../../platform/report.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';

export interface BearerChoice {
  bearer?: string;
  check: Check;
  /** The Bearer is the one in mcp.json: a refusal of it is recorded (recordIfRefused). */
  fromMcpJson?: true;
}

const ID = 'config.bearer';

export function bearerFromEnv(name: string, env: NodeJS.ProcessEnv): BearerChoice {
  const raw = env[name]?.trim().replace(/^Bearer\s+/i, '');
  if (!raw) return { check: warn(ID, `--token-env ${name}: the variable is empty or unset; probing without a Bearer`, `export ${name}=<access token>`) };
  return { bearer: raw, check: pass(ID, `Bearer from $${name}`) };
}

export function bearerFromMcpJson(path: string, baseUrl: string): BearerChoice {
  const mcp = readMcpState(path, null);
  if (mcp.error) return { check: warn(ID, `${mcp.error}; probing without a Bearer`, 'fix the file, or pass --token-env NAME') };
  if (!mcp.config) return { check: warn(ID, `no ${path}; probing without a Bearer`, 'sign in first, or pass --token-env NAME') };
  const entry = mcp.entry;
  if (!entry) return { check: warn(ID, `${path} has no "${MCP_SERVER_KEY}" entry; probing without a Bearer`, 'sign in first, or pass --token-env NAME') };
  const bearer = bearerOf(mcp.config);
  if (!bearer) return { check: warn(ID, `the "${MCP_SERVER_KEY}" entry in ${path} has no real Bearer (missing or a placeholder); probing without one`, 'sign in again, or pass --token-env NAME') };
  const entryBase = baseUrlFromMcpUrl(entry.url);
  if (entryBase !== baseUrl) {
    return { check: warn(ID, `the "${MCP_SERVER_KEY}" entry points at ${entryBase ?? 'another URL'}, not ${baseUrl}; its Bearer is not sent elsewhere`, 'pass --token-env NAME for this server') };
  }
  return { bearer, check: pass(ID, `Bearer from the "${MCP_SERVER_KEY}" entry of ${path}`), fromMcpJson: true };
}

/**
 * The probe saw the server refuse mcp.json's Bearer (401 `invalid_token`): recorded as session start records it,
 * so every later view says refused and the token is renewed. A Bearer from --token-env is not the plugin's: nothing
 * is recorded for it. Whether it was recorded.
 */
export function recordIfRefused(choice: BearerChoice, probe: ProbeReport | undefined, args: { failurePath: string; baseUrl: string; now: number }): boolean {
  if (!choice.fromMcpJson || !choice.bearer || !probe || !bearerRefused(probe)) return false;
  try {
    recordRefusal({ failurePath: args.failurePath, serverUrl: mcpUrlFor(args.baseUrl), token: choice.bearer, message: `${probe.mcpUrl} refused the token (HTTP 401 invalid_token)`, now: args.now });
    return true;
  } catch {
    return false;
  }
}
