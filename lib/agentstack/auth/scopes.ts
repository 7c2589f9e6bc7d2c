/**
 * OAuth scopes the plugin asks for. AgentStack scopes are capabilities: an action's `required_cap` names one,
 * and the access token lists the granted ones in its `caps` claim.
 */
export const BASE_SCOPES = ['openid', 'offline_access'] as const;

export const CAPABILITY_SCOPES = [
  'profile:read',
  'projects:read',
  'projects:write',
  'actions:read',
  'actions:execute',
  'data:read',
  'data:write',
] as const;

export const SCOPE_PRESETS = {
  readonly: ['profile:read', 'projects:read', 'actions:read', 'data:read'],
  builder: ['profile:read', 'projects:read', 'projects:write', 'actions:read', 'actions:execute', 'data:read'],
  full: [...CAPABILITY_SCOPES],
} as const satisfies Record<string, readonly string[]>;

export type ScopePreset = keyof typeof SCOPE_PRESETS;
export const DEFAULT_SCOPE_PRESET: ScopePreset = 'full';

export function isScopePreset(value: string): value is ScopePreset {
  return Object.hasOwn(SCOPE_PRESETS, value);
}

/** The space-separated scope string for a preset, with the base scopes first. */
export function scopeStringFor(preset: ScopePreset): string {
  return [...BASE_SCOPES, ...SCOPE_PRESETS[preset]].join(' ');
}

/** The JWT claim that lists granted capabilities. */
export const CAPS_CLAIM = 'caps';
