/**
 * Who an MCP call is for, read from a hook's input in every form Cursor builds are known to send:
 *
 * - `tool_name` bare (`agentstack.execute`), as `MCP:<server>:<tool>`, as `MCP:<tool>` (the form Cursor's hook
 *   matchers use), as `mcp__<server>__<tool>` (the form other agents' hooks use), or with the server joined to our
 *   tool's name by `-`, `_`, `:`, `.` or `/` (`user-agentstack-agentstack.execute`, `mcp_user-agentstack_agentstack_execute`);
 * - the server as `mcp_server_name` (the mcp.json key, or Cursor's `user-<key>` / `plugin-<plugin>-<key>`), as the
 *   server segment of `tool_name`, as `url`, or as `mcp_server_url`.
 *
 * Pure and small: the hooks' first stages import it, before any file is read. Nothing here parses a URL: placing a
 * call by its url (`placeCall`) is left to the stages that run only for a call that may be AgentStack's.
 */
import { mcpUrlFor, mcpUrlKey } from './baseUrl.js';
import { CONNECT_SERVER_NAME, DEVICE_CODE_SERVER_NAME, EXECUTE_TOOL_NAMES, MCP_SERVER_KEY, isExecuteTool } from './toolNames.js';

/** The names Cursor gives our server: the bare key, the Device Code entry, the plugin's own (Connect) server. */
export const AGENTSTACK_SERVER_NAMES: ReadonlySet<string> = new Set([MCP_SERVER_KEY, DEVICE_CODE_SERVER_NAME, CONNECT_SERVER_NAME]);

/** The tool Cursor calls on a server that asks for OAuth: never one of AgentStack's actions. */
export const MCP_AUTH_TOOL = 'mcp_auth';

/** How `tool_name` was written. */
export type ToolNameForm = 'bare' | 'mcp-prefix' | 'mcp-server-prefix' | 'double-underscore' | 'joined';

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

/** The characters a server's name is joined to a tool's name with, in the forms seen. */
const JOINERS = '-_:./';

/**
 * The server and our tool in a name that joins them (`<server><joiner><tool>`), else null. Only our tool's names can
 * be split this way (no other tool's name is known); a leading `mcp_` is a prefix, not part of the server's name.
 */
function splitJoined(name: string): { server: string; tool: string } | null {
  for (const tool of EXECUTE_TOOL_NAMES) {
    if (name.length > tool.length + 1 && name.endsWith(tool) && JOINERS.includes(name[name.length - tool.length - 1]!)) {
      let server = name.slice(0, -tool.length - 1);
      if (server.length > 4 && server.slice(0, 4).toLowerCase() === 'mcp_') server = server.slice(4);
      return { server, tool };
    }
  }
  return null;
}

/**
 * Splits a `tool_name` into its server (when it names one) and the tool's own name. String scans, no regular
 * expression: this runs before every MCP call of every server, and compiling one costs more than the rest.
 */
export function splitToolName(toolName: string): SplitToolName {
  let rest = toolName;
  let form: ToolNameForm = 'bare';
  if (toolName.length >= 4 && toolName.slice(0, 4).toLowerCase() === 'mcp:') {
    rest = toolName.slice(4);
    const colon = rest.indexOf(':');
    if (colon > 0 && colon < rest.length - 1) return { server: rest.slice(0, colon), tool: rest.slice(colon + 1), form: 'mcp-server-prefix' };
    form = 'mcp-prefix';
  } else if (toolName.startsWith('mcp__')) {
    const end = toolName.indexOf('__', 6);
    if (end > 5 && end < toolName.length - 2) return { server: toolName.slice(5, end), tool: toolName.slice(end + 2), form: 'double-underscore' };
  }
  const joined = isExecuteTool(rest) ? null : splitJoined(rest);
  return joined ? { ...joined, form: 'joined' } : { server: null, tool: rest, form };
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

/** What the server's name alone says: ours, another server's, or nothing (no name given). Case, and `_` for `-`, do not tell names apart. */
export function serverByName(identity: Pick<CallIdentity, 'serverName'>): 'agentstack' | 'other' | null {
  const name = identity.serverName;
  if (name === null) return null;
  return AGENTSTACK_SERVER_NAMES.has(name) || AGENTSTACK_SERVER_NAMES.has(name.toLowerCase().replaceAll('_', '-')) ? 'agentstack' : 'other';
}

/** True when the call's url is the MCP URL of one of `knownBaseUrls`, compared as `mcpUrlKey` reads them. */
export function urlIsKnown(identity: Pick<CallIdentity, 'serverUrl'>, knownBaseUrls: readonly string[]): boolean {
  const key = mcpUrlKey(identity.serverUrl);
  return key !== null && knownBaseUrls.some((base) => mcpUrlKey(mcpUrlFor(base)) === key);
}

/**
 * Where a call goes: `agentstack` by its server name, else by its url among the bases the plugin knows (a call that
 * names no server at all is ours when it names our execute tool: no other server's tool has that name);
 * `unplaced`: it gives a url that is none of them (the server behind it may still be AgentStack's, reached another
 * way); `other`: it names another server and no url.
 */
export function placeCall(identity: CallIdentity, knownBaseUrls: readonly string[]): 'agentstack' | 'unplaced' | 'other' {
  if (serverByName(identity) === 'agentstack') return 'agentstack';
  if (identity.serverUrl !== null) return urlIsKnown(identity, knownBaseUrls) ? 'agentstack' : 'unplaced';
  return identity.serverName === null && namesExecuteTool(identity) ? 'agentstack' : 'other';
}

/** True when the call goes to AgentStack (`placeCall`). */
export function isAgentStackCall(identity: CallIdentity, knownBaseUrls: readonly string[]): boolean {
  return placeCall(identity, knownBaseUrls) === 'agentstack';
}

/**
 * True when one of the fields that name a call mentions AgentStack (case aside, as `firstLook` compares them). Every
 * call `firstLook` sends on to the check mentions it (our tool's names, our server's names and its url all hold
 * `agentstack`), so a call that does not is another server's without splitting its name: the hook's first stage
 * answers most calls with this test alone and leaves `firstLook`, and the code it needs, to the next stage.
 */
export function mentionsAgentStack(raw: CallFields): boolean {
  for (const value of [raw.tool_name, raw.mcp_server_name, raw.url, raw.mcp_server_url]) {
    if (typeof value === 'string' && value.toLowerCase().includes(MCP_SERVER_KEY)) return true;
  }
  return false;
}

/**
 * What the hook's first stage can decide from the input alone, before reading any file and without parsing a url:
 * - `check`: the call may be AgentStack's (our tool name, our server name, or, named by url alone, a tool whose name
 *   or url mentions AgentStack), so the next stage runs;
 * - `neutral`: another server's call, `mcp_auth`, or a call naming neither our tool nor any server.
 */
export function firstLook(identity: CallIdentity): 'check' | 'neutral' {
  if (identity.tool === null) return 'neutral';
  if (namesExecuteTool(identity)) return 'check';
  if (identity.tool === MCP_AUTH_TOOL) return 'neutral';
  const byName = serverByName(identity);
  if (byName !== null) return byName === 'agentstack' ? 'check' : 'neutral';
  return identity.serverUrl !== null && `${identity.tool} ${identity.serverUrl}`.toLowerCase().includes(MCP_SERVER_KEY) ? 'check' : 'neutral';
}
