/**
 * OAuth scopes the plugin asks for. AgentStack scopes are capabilities: an action's `required_cap` names one, and
 * the access token lists the granted ones (in `caps`, `scp` or `scope`, whichever the server uses).
 *
 * A preset follows what the server advertises (`scopes_supported`): `full` asks for every advertised scope,
 * `readonly` for the read ones, `builder` for read + execute/write. A scope the plugin knows keeps its place in
 * the presets below; another is judged by its words (capabilityKind.ts, the rule the per-action policy uses too).
 * When the server publishes no OAuth metadata at all, the lists below are used as they are (AgentStack's own).
 */
import { PluginError } from '../../platform/errors.js';
import { capabilityKind } from './capabilityKind.js';

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

/** What a sign-in asks for: a preset, or an explicit list (`--scopes`). */
export type ScopeRequest = { preset: ScopePreset } | { scopes: readonly string[] };

export function isScopePreset(value: string): value is ScopePreset {
  return Object.hasOwn(SCOPE_PRESETS, value);
}

/** The space-separated scope string for a preset, with the base scopes first (no advertised list). */
export function scopeStringFor(preset: ScopePreset): string {
  return [...BASE_SCOPES, ...SCOPE_PRESETS[preset]].join(' ');
}

/** Whether an advertised scope belongs in a preset: known scopes by the table above, others by their kind. */
function inPreset(scope: string, preset: ScopePreset): boolean {
  if (preset === 'full') return true;
  if ((CAPABILITY_SCOPES as readonly string[]).includes(scope)) return (SCOPE_PRESETS[preset] as readonly string[]).includes(scope);
  const kind = capabilityKind(scope);
  return preset === 'readonly' ? kind === 'read' : kind === 'read' || kind === 'write';
}

/**
 * What the server offers, as discovery found it: `scopesSupported` is the MCP spec's choice (the 401 challenge's
 * `scope`, else the resource metadata's `scopes_supported`), `serverScopes` the authorization server's own list.
 * `builtin`: the server published no metadata at all, so AgentStack's own lists apply.
 */
export interface ScopeOffer {
  scopesSupported?: readonly string[] | null;
  serverScopes?: readonly string[] | null;
  source?: 'discovery' | 'builtin';
}

/**
 * The scope string to send (empty: send none). The MCP spec's choice: the challenge's scope, else the resource
 * metadata's `scopes_supported`, else none; a preset takes its share of that list. `offline_access` (what brings a
 * refresh token) is added when the authorization server's metadata lists it, never otherwise; `openid` only when the
 * list names it. An explicit scope nobody offers is refused (`invalid_config`). A server with no metadata at all gets
 * AgentStack's built-in lists.
 */
export function resolveScopes(request: ScopeRequest, offer: ScopeOffer | readonly string[] | null | undefined): string {
  const o: ScopeOffer = Array.isArray(offer) || offer == null ? { scopesSupported: offer as readonly string[] | null } : offer as ScopeOffer;
  const listed = o.scopesSupported?.length ? o.scopesSupported : null;
  const server = o.serverScopes ?? [];
  if (!listed && (o.source === 'builtin' || (o.source === undefined && !server.length))) {
    return 'preset' in request ? scopeStringFor(request.preset) : [...new Set([...BASE_SCOPES, ...request.scopes])].join(' ');
  }
  const offline = server.includes('offline_access') || Boolean(listed?.includes('offline_access'));
  const base = BASE_SCOPES.filter((s) => (s === 'offline_access' ? offline : Boolean(listed?.includes(s))));
  if ('scopes' in request) {
    const offered = new Set([...(listed ?? []), ...server]);
    const missing = offered.size ? request.scopes.filter((s) => !offered.has(s)) : [];
    if (missing.length) {
      throw new PluginError('invalid_config', `The server does not offer the scope ${missing.map((s) => JSON.stringify(s)).join(', ')}; it offers: ${[...offered].join(' ')}`);
    }
    return [...new Set([...base, ...request.scopes])].join(' ');
  }
  if (!listed) return base.join(' ');
  const chosen = listed.filter((s) => !(BASE_SCOPES as readonly string[]).includes(s) && inPreset(s, request.preset));
  if (!chosen.length && request.preset !== 'full') {
    throw new PluginError('invalid_config', `The server offers no scope for the ${request.preset} preset (it offers: ${listed.join(' ')}); choose them with --scopes "…"`);
  }
  return [...base, ...chosen].join(' ');
}

/** Claims that may list what the token was granted, in the order they are read (servers use one of them). */
export const GRANTED_SCOPE_CLAIMS = ['caps', 'scp', 'scope'] as const;

/**
 * The capabilities the token lists (the first of `caps`, `scp`, `scope` it carries, as an array or a space-separated
 * string), or null when it carries none: then nothing is denied on capabilities.
 */
export function grantedCaps(claims: Record<string, unknown> | null): Set<string> | null {
  for (const claim of GRANTED_SCOPE_CLAIMS) {
    const raw = claims?.[claim];
    if (Array.isArray(raw)) return new Set(raw.filter((c): c is string => typeof c === 'string'));
    if (typeof raw === 'string') return new Set(raw.split(/\s+/).filter(Boolean));
  }
  return null;
}

/**
 * What the grant covers: the token's own list when it carries one, else the `scope` of the token response (RFC 6749
 * 5.1), else null (unknown: nothing is counted as uncovered).
 */
export function grantedScopes(claims: Record<string, unknown> | null, responseScope: string | null | undefined): string[] | null {
  const fromToken = grantedCaps(claims);
  if (fromToken) return [...fromToken];
  const listed = responseScope?.split(/\s+/).filter(Boolean);
  return listed?.length ? listed : null;
}

/** How many actions need a capability the grant lacks (an action without `required_cap` needs none). */
export function uncoveredActions(actions: ReadonlyArray<{ required_cap?: string | null }>, granted: readonly string[] | null): number {
  if (!granted) return 0;
  const has = new Set(granted);
  return actions.filter((a) => typeof a.required_cap === 'string' && a.required_cap !== '' && !has.has(a.required_cap)).length;
}
