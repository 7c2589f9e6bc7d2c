/**
 * Variants: the same contract served differently, as another AgentStack-compatible server might. Each changes only
 * what the contract leaves open (field types the plugin does not read, extra fields, a malformed entry among good
 * ones, the size and alphabet of the catalog, the scope vocabulary, where granted scopes travel in the token, how
 * much `/api/auth/me` says, discovery), so the plugin's outcome must not change. Several can be combined.
 */
import { CAPABILITY_SCOPES, CAPS_CLAIM } from './contract.js';

export const VARIANT_NAMES = [
  'safe-string', 'safe-object', 'safe-boolean', 'extra-fields', 'malformed-entry', 'many-actions', 'unicode-actions',
  'other-scopes', 'scope-claim', 'scp-claim', 'no-caps-claim', 'me-sparse', 'no-discovery', 'admin-actions',
  'root-resource-metadata', 'challenge-metadata', 'other-issuer', 'agentstack',
] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

export function isVariantName(value: string): value is VariantName {
  return (VARIANT_NAMES as readonly string[]).includes(value);
}

export const VARIANT_HELP: Record<VariantName, string> = {
  'safe-string': 'safe_action as a string ("yes"/"no")',
  'safe-object': 'safe_action as an object ({"level": …})',
  'safe-boolean': 'safe_action as a boolean (the default shape, named for completeness)',
  'extra-fields': 'extra fields of odd types everywhere: catalog, entries, metadata, device and token responses, /api/auth/me',
  'malformed-entry': 'one malformed catalog entry (action: 12345) among good ones',
  'many-actions': '10,000 more tenant actions (bulk.op_00000 …)',
  'unicode-actions': 'tenant actions with non-ASCII names (données.lire, 项目.列表, …)',
  'other-scopes': 'another scope vocabulary (read:profile, write:data, execute:actions, …) in metadata, tokens and the catalog',
  'scope-claim': 'granted scopes only in the token\'s `scope` claim (no `caps`)',
  'scp-claim': 'granted scopes only in an `scp` array claim (no `caps`, no `scope`)',
  'no-caps-claim': 'tokens carry no claim listing granted scopes',
  'me-sparse': '/api/auth/me with only user_id, no email or display name, and extra fields of odd types',
  'no-discovery': 'every /.well-known document answers 404',
  'admin-actions': 'tenant actions that need an administrative capability (projects.delete: projects:admin, data.purge: data:admin), listed only',
  'root-resource-metadata': 'RFC 9728 metadata only at /.well-known/oauth-protected-resource, with resource = the origin (the 401 challenge points there)',
  'challenge-metadata': 'RFC 9728 metadata only at a URL named by the 401 challenge\'s resource_metadata (no well-known location)',
  'other-issuer': 'the authorization server is another origin (http://localhost:<port>); its endpoints and metadata are not served on the base URL',
  'agentstack': 'what AgentStack\'s hosted server adds to a plain deployment: openid and offline_access in the RFC 9728 scopes_supported, and its RFC 8414 metadata at every /.well-known/oauth-authorization-server/<path>',
};

/** Where the `challenge-metadata` variant serves its protected-resource metadata. */
export const CHALLENGE_METADATA_PATH = '/auth/protected-resource-metadata';

export const MANY_ACTIONS = 10_000;
/** Listed in the catalog for clients to judge (a policy that refuses admin actions); this core does not run them. */
export const ADMIN_ACTIONS = [
  { action: 'projects.delete', required_cap: 'projects:admin' },
  { action: 'data.purge', required_cap: 'data:admin' },
] as const;
export const UNICODE_ACTIONS = ['données.lire', '项目.列表', 'ελληνικά.δοκιμή', 'emoji.🚀_launch', 'ütf.naïve-café'];

/** The scope vocabulary on the wire: the canonical capability name -> the name this server uses. */
const OTHER_VOCABULARY: Record<string, string> = {
  'profile:read': 'read:profile',
  'projects:read': 'read:projects',
  'projects:write': 'write:projects',
  'actions:read': 'read:actions',
  'actions:execute': 'execute:actions',
  'data:read': 'read:data',
  'data:write': 'write:data',
};

export class Variants {
  private readonly set: ReadonlySet<VariantName>;
  constructor(names: readonly VariantName[] = []) {
    this.set = new Set(names);
  }

  has(name: VariantName): boolean {
    return this.set.has(name);
  }

  list(): VariantName[] {
    return [...this.set];
  }

  /** A canonical capability as this server names it. */
  wireCap(cap: string): string {
    return this.has('other-scopes') ? OTHER_VOCABULARY[cap] ?? cap : cap;
  }

  /** A capability as named on the wire, back to the canonical name the registry uses. */
  canonicalCap(wire: string): string {
    if (!this.has('other-scopes')) return wire;
    return Object.entries(OTHER_VOCABULARY).find(([, w]) => w === wire)?.[0] ?? wire;
  }

  capabilityScopes(): string[] {
    return CAPABILITY_SCOPES.map((c) => this.wireCap(c));
  }

  /** Where granted capabilities travel in the access token: a claim name, or null for none. */
  capsClaim(): 'caps' | 'scope' | 'scp' | null {
    if (this.has('no-caps-claim')) return null;
    if (this.has('scp-claim')) return 'scp';
    if (this.has('scope-claim')) return 'scope';
    return CAPS_CLAIM;
  }

  /** The access token's payload as this server shapes it (claims are moved or dropped, never added to). */
  shapeTokenPayload(payload: Record<string, unknown>): void {
    const claim = this.capsClaim();
    const caps = payload[CAPS_CLAIM];
    if (claim === CAPS_CLAIM) return;
    delete payload[CAPS_CLAIM];
    if (claim !== 'scope') delete payload.scope;
    if (claim === 'scp') payload.scp = Array.isArray(caps) ? caps : [];
  }

  /** Reads granted capabilities (canonical names) from a verified payload; null when the token lists none. */
  capsOf(payload: Record<string, unknown>): string[] | null {
    const claim = this.capsClaim();
    if (claim === null) return null;
    const raw = payload[claim];
    const list = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(' ').filter(Boolean) : null;
    return list ? list.map((c) => this.canonicalCap(c)) : null;
  }

  /** Extra fields for any JSON document this server sends. */
  extras(where: string): Record<string, unknown> {
    if (!this.has('extra-fields')) return {};
    return { x_variant: { where, nested: [1, 'two', { three: null }] }, x_flag: true, x_count: 7, x_note: null };
  }

  /** The catalog as this server serves it. */
  shapeCatalog(catalog: { domains: Record<string, ReadonlyArray<object>>; total_actions: number }): Record<string, unknown> {
    const domains: Record<string, unknown[]> = {};
    for (const [domain, entries] of Object.entries(catalog.domains)) {
      domains[domain] = entries.map((entry) => this.shapeEntry(entry as Record<string, unknown>));
    }
    if (this.has('malformed-entry')) {
      const projects = domains.projects ?? (domains.projects = []);
      projects.splice(1, 0, { action: 12345, required_cap: this.wireCap('projects:read'), summary: 'an entry whose name is a number' });
    }
    if (this.has('unicode-actions')) {
      for (const name of UNICODE_ACTIONS) {
        const domain = name.split('.')[0]!;
        (domains[domain] ??= []).push(this.shapeEntry({ action: name, required_cap: 'data:read', summary: 'non-ASCII name', safe_action: true, category: domain, doc_audience: 'public' }));
      }
    }
    if (this.has('admin-actions')) {
      for (const { action, required_cap } of ADMIN_ACTIONS) {
        const domain = action.split('.')[0]!;
        (domains[domain] ??= []).push(this.shapeEntry({ action, required_cap, summary: 'administrative', safe_action: false, category: domain, doc_audience: 'public' }));
      }
    }
    if (this.has('many-actions')) {
      const bulk: unknown[] = (domains.bulk = []);
      for (let i = 0; i < MANY_ACTIONS; i++) {
        const cap = CAPABILITY_SCOPES[i % CAPABILITY_SCOPES.length]!;
        bulk.push(this.shapeEntry({ action: `bulk.op_${String(i).padStart(5, '0')}`, required_cap: cap, summary: `Bulk operation ${i}`, safe_action: i % 2 === 0, category: 'bulk', doc_audience: 'public' }));
      }
    }
    const total = Object.values(domains).reduce((n, list) => n + list.length, 0);
    const extra = this.has('extra-fields') ? { version: { major: 2026, minor: 11 }, entrypoint: 42, ...this.extras('catalog') } : {};
    const countOffset = catalog.total_actions - Object.values(catalog.domains).reduce((n, l) => n + l.length, 0);
    return { ...catalog, ...extra, total_actions: total + countOffset, domains };
  }

  private shapeEntry(entry: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...entry };
    if (typeof out.required_cap === 'string') out.required_cap = this.wireCap(out.required_cap);
    const safe = entry.safe_action === true;
    if (this.has('safe-string')) out.safe_action = safe ? 'yes' : 'no';
    if (this.has('safe-object')) out.safe_action = { level: safe ? 'safe' : 'mutating', reviewed: true };
    if (this.has('safe-boolean')) out.safe_action = safe;
    if (this.has('extra-fields')) Object.assign(out, { summary: 17, x_meta: { owner: ['a', 'b'], weight: 0.5 }, x_tags: null });
    return out;
  }

  /** `/api/auth/me`'s `data` as this server sends it. */
  shapeMe(data: { user_id: string; email: string; display_name: string; role: string }): Record<string, unknown> {
    const base: Record<string, unknown> = this.has('me-sparse')
      ? { user_id: data.user_id, role: { name: data.role, since: 2020 }, avatar: null, teams: [{ id: 1 }] }
      : { ...data };
    return { ...base, ...this.extras('me') };
  }
}
