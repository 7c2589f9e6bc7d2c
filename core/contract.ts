/**
 * The core's own names for the contract it serves: scopes, the claim that lists granted capabilities, the MCP path.
 * Written here rather than imported from the plugin, so a wrong guess in the plugin cannot hide behind the same
 * guess in the core (only the tool name is shared).
 */
export const MCP_PATH = '/mcp';

/** OIDC scopes that grant no capability. */
export const BASE_SCOPES = ['openid', 'offline_access'] as const;

/** AgentStack's capability scopes; an action's `required_cap` names one. */
export const CAPABILITY_SCOPES = [
  'profile:read',
  'projects:read',
  'projects:write',
  'actions:read',
  'actions:execute',
  'data:read',
  'data:write',
] as const;

/** The access-token claim that lists granted capabilities (by default; variants move or drop it). */
export const CAPS_CLAIM = 'caps';
