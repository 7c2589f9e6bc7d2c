/**
 * Schemas of what AgentStack's server sends, checked at the boundary. zod/mini (the same zod 4, functional API)
 * keeps the hooks' bundles small and their start-up fast; inside the kernel only the inferred plain types are used.
 * Objects are loose: a server may add fields, but every field we read must have the type we expect.
 */
import * as z from 'zod/mini';

const text = (max = 4096) => z.string().check(z.maxLength(max));

/**
 * One catalog entry, as the snapshot reads it: the name, the capability it needs, and the two fields that tell a
 * tenant entry from an operator one. Every other field (`summary`, `safe_action`, ...) is not read, so its type
 * never matters. Each entry is checked on its own: a malformed one is skipped and counted, never the whole list.
 */
export const ActionEntrySchema = z.looseObject({
  action: z.string().check(z.minLength(1), z.maxLength(200)),
  required_cap: z.optional(z.nullable(text(200))),
  category: z.optional(z.nullable(text(200))),
  doc_audience: z.optional(z.nullable(text(200))),
});
export type ActionEntry = z.infer<typeof ActionEntrySchema>;

/** `GET /mcp/actions` at the top: only `domains` is required; each domain's list is checked entry by entry. */
export const ActionsCatalogSchema = z.looseObject({
  total_actions: z.optional(z.unknown()),
  domains: z.record(z.string(), z.unknown()),
  catalog_etag: z.optional(z.unknown()),
});
export type ActionsCatalog = z.infer<typeof ActionsCatalogSchema>;

export const ActionsSummarySchema = z.looseObject({
  total_actions: z.optional(z.unknown()),
  catalog_etag: z.optional(z.unknown()),
});

/** An optional string we display: any other type reads as absent rather than failing the document. */
const shown = (max: number) => z.catch(z.optional(z.nullable(text(max))), undefined);

/** `GET /api/auth/me`: only the id is required; a missing or odd email or display name reads as absent. */
export const MeSchema = z.looseObject({
  data: z.looseObject({
    user_id: z.union([z.string().check(z.minLength(1)), z.number()]),
    email: shown(320),
    display_name: shown(200),
  }),
});
export type Me = z.infer<typeof MeSchema>['data'];

export const SwitchProjectSchema = z.looseObject({
  data: z.looseObject({ access_token: z.string().check(z.minLength(1)) }),
});

export const HealthSchema = z.looseObject({
  ok: z.boolean(),
  mcp_surface_tools: z.optional(z.number()),
});

/** RFC 9728 protected resource metadata (only the fields we use; `scopes_supported` is read by scopesSupportedOf). */
export const ProtectedResourceMetadataSchema = z.looseObject({
  resource: z.string(),
  authorization_servers: z.optional(z.array(z.string())),
  scopes_supported: z.optional(z.unknown()),
});

/**
 * `scopes_supported` of RFC 9728 or RFC 8414 metadata: its string items (each a valid scope token, at most 200
 * characters); null when the server advertises none. A non-string item is skipped, never the whole list.
 */
export function scopesSupportedOf(metadata: unknown): string[] | null {
  const raw = metadata && typeof metadata === 'object' ? (metadata as { scopes_supported?: unknown }).scopes_supported : undefined;
  if (!Array.isArray(raw)) return null;
  const scopes = raw.filter((s): s is string => typeof s === 'string' && s.length <= 200 && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s));
  return scopes.length ? [...new Set(scopes)] : null;
}

/** A JSON-RPC error body, as an MCP server may send it on a failed HTTP request. */
export const JsonRpcErrorSchema = z.looseObject({
  jsonrpc: z.optional(z.string()),
  error: z.looseObject({ code: z.number(), message: z.optional(z.string()) }),
});

/** One entry of an MCP tool's `icons` (tools/list); each is checked on its own so one bad icon is reported alone. */
export const IconSchema = z.looseObject({
  src: z.string().check(z.minLength(1)),
  mimeType: z.optional(z.string()),
  sizes: z.optional(z.array(z.string())),
});
