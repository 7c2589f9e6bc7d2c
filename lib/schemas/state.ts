/**
 * Schemas of the plugin's own files under the Cursor dir. Everything read from disk is checked: a file a person
 * edited by hand, or one left by an older version, must produce a clear message, never a crash.
 */
import * as z from 'zod/mini';

/** One action in the flattened capability snapshot: only what the plugin reads (the pre-MCP hook, the diff). */
export const SnapshotActionSchema = z.looseObject({
  action: z.string().check(z.minLength(1)),
  domain: z.optional(z.string()),
  required_cap: z.optional(z.nullable(z.string())),
});
export type SnapshotAction = z.infer<typeof SnapshotActionSchema>;

/**
 * `agentstack-capabilities.json` with its action entries left unchecked: the hooks read only this and check the
 * 5,000 entries by hand (snapshot/actionIndex.ts, snapshot/meta.ts) through the two narrower schemas below.
 * `unapproved` lists actions that appeared since the person last approved the snapshot (a server quietly growing
 * its action list is the "rug pull"); the pre-MCP hook asks before using them. A null optional field (a hand edit;
 * the plugin writes none) reads as absent. The key order is the file's: `actions` between the scalar fields and the
 * approval fields, which the hooks' fast paths rely on (zod outputs keys in schema order; a spread keeps a replaced
 * key in place).
 */
export const SnapshotHeadSchema = z.looseObject({
  fetched_at: z.string(),
  audience: z.literal('tenant'),
  server_url: z.optional(z.nullable(z.string())),
  total_actions: z.number(),
  /** Catalog entries left out as malformed when it was fetched, and the first one's reason. */
  skipped_entries: z.optional(z.nullable(z.number())),
  skipped_reason: z.optional(z.nullable(z.string())),
  actions: z.unknown(),
  catalog_etag: z.optional(z.nullable(z.string())),
  unapproved: z.optional(z.nullable(z.array(z.string()))),
  approved_at: z.optional(z.nullable(z.string())),
  last_diff: z.optional(z.nullable(z.looseObject({ at: z.string(), added: z.array(z.string()), removed: z.array(z.string()) }))),
});
export type SnapshotHead = z.infer<typeof SnapshotHeadSchema>;

const head = SnapshotHeadSchema.shape;

/** What the pre-MCP hook reads of the snapshot's top level (`actions` it checks entry by entry itself). */
export const SnapshotTopSchema = z.looseObject({
  fetched_at: head.fetched_at, audience: head.audience, skipped_entries: head.skipped_entries, actions: head.actions,
  unapproved: head.unapproved,
});

/** What session start reads of the snapshot's top level on every start (snapshot/meta.ts). */
export const SnapshotMetaSchema = z.looseObject({
  fetched_at: head.fetched_at, audience: head.audience, server_url: head.server_url, total_actions: head.total_actions,
  skipped_entries: head.skipped_entries, skipped_reason: head.skipped_reason, actions: head.actions, unapproved: head.unapproved,
  last_diff: head.last_diff,
});

/** The whole snapshot, every action entry checked (diagnose, the snapshot refresh, approval). */
export const CapabilitySnapshotSchema = z.looseObject({ ...SnapshotHeadSchema.shape, actions: z.array(SnapshotActionSchema) });
export type CapabilitySnapshot = z.infer<typeof CapabilitySnapshotSchema>;

/**
 * `agentstack-capabilities-failed.json`, beside the snapshot: the last failed catalog fetch, so session start names
 * it and waits before trying again instead of paying a round trip at every start.
 */
export const SnapshotFailureSchema = z.looseObject({
  at: z.string(),
  server_url: z.string(),
  message: z.string(),
  unauthorized: z.optional(z.boolean()),
  /** SHA-256 (base64url) of the Bearer the server refused, to tell it from a later one (opaque tokens carry no `iat`). */
  token_sha256: z.optional(z.nullable(z.string())),
  /** The server also refused to renew this token with the stored refresh token (`invalid_grant`). */
  renewal_refused: z.optional(z.boolean()),
  /** The server answered 404: it serves no capability list (it is not AgentStack). */
  not_served: z.optional(z.boolean()),
});
export type SnapshotFailure = z.infer<typeof SnapshotFailureSchema>;

/**
 * `agentstack-refresh` (JSON form; an older plain-text form holds just the token). The refresh token itself is here
 * (`store` absent or `file`) or in the system keychain (`store: keychain`, under `keychain_server` and
 * `keychain_account`; then this record holds no secret).
 */
export const RefreshFileSchema = z.looseObject({
  refresh_token: z.optional(z.string().check(z.minLength(1))),
  store: z.optional(z.nullable(z.string())),
  /** Why the token is where it is, for a person (`no Secret Service on this session bus`). */
  store_reason: z.optional(z.nullable(z.string())),
  /** Which keychain (`Secret Service`, `macOS Keychain`, `Windows Credential Manager`). */
  keychain: z.optional(z.nullable(z.string())),
  keychain_server: z.optional(z.nullable(z.string())),
  keychain_account: z.optional(z.nullable(z.string())),
  /** SHA-256 (base64url) of the refresh token held in the keychain: tells a rotated one from the one a refresh started from. */
  refresh_token_sha256: z.optional(z.nullable(z.string())),
  scope: z.optional(z.nullable(z.string())),
  token_type: z.optional(z.nullable(z.string())),
  obtained_at: z.optional(z.nullable(z.string())),
  /** When the access token issued with it expires (ISO time). */
  expires_at: z.optional(z.nullable(z.string())),
  token_endpoint: z.optional(z.nullable(z.string())),
  client_id: z.optional(z.nullable(z.string())),
  /** How the client authenticated at the token endpoint (`none`, `client_secret_basic`, `client_secret_post`), chosen from the metadata at sign-in. */
  token_endpoint_auth_method: z.optional(z.nullable(z.string())),
  resource: z.optional(z.nullable(z.string())),
  /** SHA-256 (base64url) of the access token issued with this record, to recognise that Bearer in mcp.json. */
  access_token_sha256: z.optional(z.nullable(z.string())),
});
export type RefreshFile = z.infer<typeof RefreshFileSchema>;

/** `agentstack-device.lock`: who runs a device flow, and what the person must enter where. */
export const DeviceLockSchema = z.looseObject({
  pid: z.number(),
  /** The holder's process start time (Linux), to tell it from a later process with the same pid. */
  pid_start: z.optional(z.nullable(z.string())),
  started_at: z.string(),
  expires_at: z.string(),
  verification_uri: z.optional(z.nullable(z.string())),
  verification_uri_complete: z.optional(z.nullable(z.string())),
  user_code: z.optional(z.nullable(z.string())),
  /** When the code was approved and the sign-in began finishing (it no longer waits for anyone). */
  approved_at: z.optional(z.nullable(z.string())),
});
export type DeviceLock = z.infer<typeof DeviceLockSchema>;

/** `agentstack-identity.json`: who holds the token on which server (identity.ts). */
export const IdentitySchema = z.looseObject({
  who: z.string(),
  sub: z.optional(z.nullable(z.string())),
  server_url: z.string(),
  fetched_at: z.string(),
});
export type Identity = z.infer<typeof IdentitySchema>;
