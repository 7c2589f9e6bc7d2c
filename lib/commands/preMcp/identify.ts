/**
 * Which MCP calls are AgentStack `execute` calls. Cursor names a server `user-<key>` for ~/.cursor/mcp.json and
 * `plugin-<plugin>-<key>` for a plugin's own mcp.json; some builds send no name at all, only the
 * server `url`, so the url's base is compared with the bases the plugin knows (the mcp.json entry, the
 * AGENTSTACK_BASE_URL environment variable, the default). Matching widely is safe here: this hook only ever
 * narrows what Cursor allows.
 */
import { baseUrlFromMcpUrl } from '../../agentstack/server/baseUrl.js';
import { CONNECT_SERVER_NAME, DEVICE_CODE_SERVER_NAME, MCP_SERVER_KEY, isExecuteTool } from '../../agentstack/server/toolNames.js';

export const AGENTSTACK_SERVER_NAMES: ReadonlySet<string> = new Set([MCP_SERVER_KEY, DEVICE_CODE_SERVER_NAME, CONNECT_SERVER_NAME]);

/** Splits `MCP:<server>:<tool>` (a form some Cursor builds send) into its parts; a bare name has no server. */
export function splitToolName(toolName: string): { server: string | null; tool: string } {
  const match = /^MCP:([^:]+):(.+)$/.exec(toolName);
  return match ? { server: match[1]!, tool: match[2]! } : { server: null, tool: toolName };
}

export interface CallTarget {
  tool_name: string;
  url?: string | null;
  mcp_server_name?: string | null;
}

/** True when the call names the execute tool (before any file is read: most calls stop here). */
export function isExecuteCall(call: Pick<CallTarget, 'tool_name'>): boolean {
  return isExecuteTool(splitToolName(call.tool_name).tool);
}

/** True when the call goes to the AgentStack server: by Cursor's server name, else by the url's base. */
export function isAgentStackServer(call: CallTarget, knownBaseUrls: readonly string[]): boolean {
  const name = call.mcp_server_name ?? splitToolName(call.tool_name).server;
  if (name && AGENTSTACK_SERVER_NAMES.has(name)) return true;
  const base = baseUrlFromMcpUrl(call.url ?? null);
  return base !== null && knownBaseUrls.includes(base);
}
