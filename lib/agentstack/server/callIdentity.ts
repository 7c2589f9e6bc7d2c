/**
 * Who an MCP call is for, read from a hook's input in every form Cursor builds are known to send:
 *
 * - `tool_name` bare (`agentstack.execute`), as `MCP:<server>:<tool>`, as `MCP:<tool>` (the form Cursor's hook
 *   matchers use), or as `mcp__<server>__<tool>` (the form other agents' hooks use);
 * - the server as `mcp_server_name` (the mcp.json key, or Cursor's `user-<key>` / `plugin-<plugin>-<key>`), as the
 *   server segment of `tool_name`, as `url`, or as `mcp_server_url`.
 *
 * Pure and small: the hooks' first stages import it, before any file is read.
 */
import { baseUrlFromMcpUrl } from './baseUrl.js';
import { CONNECT_SERVER_NAME, DEVICE_CODE_SERVER_NAME, MCP_SERVER_KEY, isExecuteTool } from './toolNames.js';

/** The names Cursor gives our server: the bare key, the Device Code entry, the plugin's own (Connect) server. */
export const AGENTSTACK_SERVER_NAMES: ReadonlySet<string> = new Set([MCP_SERVER_KEY, DEVICE_CODE_SERVER_NAME, CONNECT_SERVER_NAME]);

/** The tool Cursor calls on a server that asks for OAuth: never one of AgentStack's actions. */
export const MCP_AUTH_TOOL = 'mcp_auth';

/** How `tool_name` was written. */
export type ToolNameForm = 'bare' | 'mcp-prefix' | 'mcp-server-prefix' | 'double-underscore';

export interface CallIdentity {
  /** The tool's own name, without any prefix; null when the input has no `tool_name` string. */
  tool: string | null;
  form: ToolNameForm | null;
  /** `mcp_server_name`, else the server segment of `tool_name`. */
  serverName: string | null;
  /** `url`, else `mcp_server_url`. */
  serverUrl: string | null;
}

export interface SplitToolName {
  server: string | null;
  tool: string;
  form: ToolNameForm;
}

/**
 * Splits a `tool_name` into its server (when it names one) and the tool's own name. String scans, no regular
 * expression: this runs before every MCP call of every server, and compiling one costs more than the rest.
 */
export function splitToolName(toolName: string): SplitToolName {
  if (toolName.length >= 4 && toolName.slice(0, 4).toLowerCase() === 'mcp:') {
    const rest = toolName.slice(4);
    const colon = rest.indexOf(':');
    if (colon > 0 && colon < rest.length - 1) return { server: rest.slice(0, colon), tool: rest.slice(colon + 1), form: 'mcp-server-prefix' };
    return { server: null, tool: rest, form: 'mcp-prefix' };
  }
  if (toolName.startsWith('mcp__')) {
    const end = toolName.indexOf('__', 6);
    if (end > 5 && end < toolName.length - 2) return { server: toolName.slice(5, end), tool: toolName.slice(end + 2), form: 'double-underscore' };
  }
  return { server: null, tool: toolName, form: 'bare' };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** The fields of a hook input that name a call. */
export interface CallFields {
  tool_name?: unknown;
  mcp_server_name?: unknown;
  url?: unknown;
  mcp_server_url?: unknown;
}

/** Reads a hook input's call identity; fields of the wrong type count as absent. */
export function callIdentity(raw: CallFields): CallIdentity {
  const name = typeof raw.tool_name === 'string' ? splitToolName(raw.tool_name) : null;
  return {
    tool: name ? name.tool : null,
    form: name ? name.form : null,
    serverName: text(raw.mcp_server_name) ?? name?.server ?? null,
    serverUrl: text(raw.url) ?? text(raw.mcp_server_url),
  };
}

/** True when the call names one of AgentStack's two tool names (the tool and its alias). */
export function namesExecuteTool(identity: Pick<CallIdentity, 'tool'>): boolean {
  return isExecuteTool(identity.tool);
}

/** What the server's name alone says: ours, another server's, or nothing (no name given). */
export function serverByName(identity: Pick<CallIdentity, 'serverName'>): 'agentstack' | 'other' | null {
  if (identity.serverName === null) return null;
  return AGENTSTACK_SERVER_NAMES.has(identity.serverName) ? 'agentstack' : 'other';
}

/** The AgentStack base behind the call's url, when the url has the shape of an MCP url (`<base>/mcp`). */
export function baseOfCallUrl(identity: Pick<CallIdentity, 'serverUrl'>): string | null {
  return baseUrlFromMcpUrl(identity.serverUrl);
}

/**
 * True when the call goes to AgentStack: by its server name, else by its url's base among the bases the plugin knows;
 * a call that names no server at all is ours when it names our execute tool (no other server's tool has that name).
 */
export function isAgentStackCall(identity: CallIdentity, knownBaseUrls: readonly string[]): boolean {
  if (serverByName(identity) === 'agentstack') return true;
  const base = baseOfCallUrl(identity);
  if (base !== null && knownBaseUrls.includes(base)) return true;
  return identity.serverName === null && identity.serverUrl === null && namesExecuteTool(identity);
}

/**
 * What the hook's first stage can decide from the input alone, before reading any file:
 * - `check`: the call may be AgentStack's (our tool name, our server name, or a url of MCP shape it cannot place
 *   without the plugin's files), so the full check runs;
 * - `neutral`: another server's call, `mcp_auth`, or a call naming neither our tool nor any server.
 */
export function firstLook(identity: CallIdentity): 'check' | 'neutral' {
  if (identity.tool === null) return 'neutral';
  if (namesExecuteTool(identity)) return 'check';
  if (identity.tool === MCP_AUTH_TOOL) return 'neutral';
  const byName = serverByName(identity);
  if (byName !== null) return byName === 'agentstack' ? 'check' : 'neutral';
  return baseOfCallUrl(identity) !== null ? 'check' : 'neutral';
}
