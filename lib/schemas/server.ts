/**
 * Schemas of what AgentStack's server sends, checked at the boundary. zod/mini (the same zod 4, functional API)
 * keeps the hooks' bundles small and their start-up fast; inside the kernel only the inferred plain types are used.
 * Objects are loose: a server may add fields, but every field we read must have the type we expect.
 */
import * as z from 'zod/mini';

const text = (max = 4096) => z.string().check(z.maxLength(max));

export const ActionEntrySchema = z.looseObject({
  action: z.string().check(z.minLength(1), z.maxLength(200)),
  required_cap: z.optional(z.nullable(text(200))),
  summary: z.optional(z.nullable(text())),
  safe_action: z.optional(z.nullable(z.boolean())),
  category: z.optional(z.nullable(text(200))),
  doc_audience: z.optional(z.nullable(text(200))),
});
export type ActionEntry = z.infer<typeof ActionEntrySchema>;

export const ActionsCatalogSchema = z.looseObject({
  version: z.optional(z.union([z.string(), z.number()])),
  entrypoint: z.optional(z.string()),
  total_actions: z.number().check(z.int(), z.nonnegative()),
  domains: z.record(z.string(), z.array(ActionEntrySchema)),
  catalog_etag: z.optional(z.nullable(z.string())),
});
export type ActionsCatalog = z.infer<typeof ActionsCatalogSchema>;

export const ActionsSummarySchema = z.looseObject({
  total_actions: z.number().check(z.int(), z.nonnegative()),
  catalog_etag: z.optional(z.nullable(z.string())),
});

export const MeSchema = z.looseObject({
  data: z.looseObject({
    user_id: z.union([z.string(), z.number()]),
    email: z.optional(z.nullable(text(320))),
    display_name: z.optional(z.nullable(text(200))),
    role: z.optional(z.nullable(text(100))),
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

/** RFC 9728 protected resource metadata (only the fields we use). */
export const ProtectedResourceMetadataSchema = z.looseObject({
  resource: z.string(),
  authorization_servers: z.optional(z.array(z.string())),
  scopes_supported: z.optional(z.array(z.string())),
});

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
