/** The one MCP tool AgentStack exposes, and the alias its server also accepts on `tools/call`. */
export const EXECUTE_TOOL = 'agentstack.execute';
export const EXECUTE_TOOL_ALIAS = 'agentstack_execute';
export const EXECUTE_TOOL_NAMES: readonly string[] = [EXECUTE_TOOL, EXECUTE_TOOL_ALIAS];

/** The key of our entry in `mcpServers`, in the plugin's mcp.json and in ~/.cursor/mcp.json. */
export const MCP_SERVER_KEY = 'agentstack';
/** How Cursor names the Device Code entry of ~/.cursor/mcp.json (`user-<key>`) and the plugin's own server, which
 * Cursor's Connect authorizes (`plugin-<plugin>-<key>`). */
export const DEVICE_CODE_SERVER_NAME = `user-${MCP_SERVER_KEY}`;
export const CONNECT_SERVER_NAME = `plugin-agentstack-${MCP_SERVER_KEY}`;

export function isExecuteTool(name: unknown): boolean {
  return typeof name === 'string' && EXECUTE_TOOL_NAMES.includes(name);
}
