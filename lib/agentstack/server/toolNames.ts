/** The one MCP tool AgentStack exposes, and the alias its server also accepts on `tools/call`. */
export const EXECUTE_TOOL = 'agentstack.execute';
export const EXECUTE_TOOL_ALIAS = 'agentstack_execute';
export const EXECUTE_TOOL_NAMES: readonly string[] = [EXECUTE_TOOL, EXECUTE_TOOL_ALIAS];

/** The key of our entry in `mcpServers`, in the plugin's mcp.json and in ~/.cursor/mcp.json. */
export const MCP_SERVER_KEY = 'agentstack';

export function isExecuteTool(name: unknown): boolean {
  return typeof name === 'string' && EXECUTE_TOOL_NAMES.includes(name);
}
