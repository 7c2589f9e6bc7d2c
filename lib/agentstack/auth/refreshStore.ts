/**
 * `agentstack-refresh`: the refresh token's record (where it is used, when it was issued), as JSON, mode 0600 from
 * creation. The token itself is in the record (the file store) or in the system keychain (credentialStore.ts), and
 * then the record says where and holds no secret. Versions before 0.5 stored the bare token as plain text; that form
 * is still read (and replaced by JSON on the next write).
 */
import { PluginError } from '../../platform/errors.js';
import { RefreshFileSchema, type RefreshFile } from '../../schemas/state.js';
import { SECRET_FILE_MODE, readTextIfExists, removeIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { mcpUrlFor, resourceCovers } from '../server/baseUrl.js';
import type { IssuedFor } from '../mcpJson/entry.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export type StoredRefresh = RefreshFile & { legacy?: boolean };
/** What the record says about where its tokens belong, without the refresh token itself. */
export type RefreshRecord = Pick<StoredRefresh, 'resource' | 'token_endpoint' | 'access_token_sha256'>;

export function recordOf(stored: StoredRefresh | null): RefreshRecord | null {
  return stored ? { resource: stored.resource ?? null, token_endpoint: stored.token_endpoint ?? null, access_token_sha256: stored.access_token_sha256 ?? null } : null;
}

/** Where the refresh token is kept, and why there: what `--status` and diagnose say (never the token). */
export interface RefreshPlacement {
  store: 'keychain' | 'file';
  /** The keychain's name when it is there. */
  keychain: string | null;
  reason: string | null;
}

export function placementOf(stored: StoredRefresh | null): RefreshPlacement | null {
  if (!stored) return null;
  if (stored.store === 'keychain') return { store: 'keychain', keychain: stored.keychain ?? 'system keychain', reason: stored.store_reason ?? null };
  return { store: 'file', keychain: null, reason: stored.store_reason ?? (stored.store ? null : 'written before the keychain store existed; the next renewal moves it') };
}

/** One line for a person: `keychain: Secret Service`, `file: no Secret Service on this session bus`. */
export function placementText(placement: RefreshPlacement): string {
  if (placement.store === 'keychain') return `keychain: ${placement.keychain}`;
  return `file${placement.reason ? `: ${placement.reason}` : ''}`;
}

/** What tells one refresh token from another without holding it here: the token, or its fingerprint in the record. */
export function refreshIdentity(stored: StoredRefresh | null): string | null {
  if (!stored) return null;
  return stored.store === 'keychain' ? `sha256:${stored.refresh_token_sha256 ?? ''}` : stored.refresh_token ?? null;
}

/** The stored refresh token, or null when there is none. A file we cannot understand is `malformed_file`. */
export function readRefreshFile(path: string): StoredRefresh | null {
  const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.refresh });
  if (text === null || !text.trim()) return null;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    if (/^[\x21-\x7e]{8,4096}$/.test(trimmed)) return { refresh_token: trimmed, legacy: true };
    throw new PluginError('malformed_file', `${path} holds neither JSON nor a plain refresh token; sign in again to replace it`);
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new PluginError('malformed_file', `${path} is not valid JSON; sign in again to replace it`);
  }
  const parsed = RefreshFileSchema.safeParse(value);
  const inKeychain = parsed.success && parsed.data.store === 'keychain' && Boolean(parsed.data.keychain_server && parsed.data.keychain_account);
  if (!parsed.success || (!parsed.data.refresh_token && !inKeychain)) throw new PluginError('malformed_file', `${path} has no usable refresh_token; sign in again to replace it`);
  return parsed.data;
}

export function writeRefreshFile(path: string, data: RefreshFile): void {
  const { legacy: _legacy, ...clean } = data as StoredRefresh;
  writeFileAtomic(path, `${JSON.stringify(clean, null, 2)}\n`, { mode: SECRET_FILE_MODE });
}

export function clearRefreshFile(path: string): boolean {
  return removeIfExists(path);
}

/**
 * Whether a stored refresh token belongs to `baseUrl`'s server: its recorded resource (or token endpoint) must name
 * it. A refresh token for another server is never sent anywhere from here, and never cleared by this server's
 * `invalid_grant`. The old plain-text form records nothing; only the Bearer check vouches for it.
 */
export function refreshBelongsTo(stored: Pick<StoredRefresh, 'resource' | 'token_endpoint'>, baseUrl: string): boolean {
  // The resource is what the server's RFC 9728 metadata named: the MCP URL, or a URL above it (often the origin).
  if (stored.resource) return resourceCovers(stored.resource, mcpUrlFor(baseUrl));
  if (stored.token_endpoint) {
    try { return new URL(stored.token_endpoint).origin === new URL(baseUrl).origin; } catch { return false; }
  }
  return true;
}

/** What the record says about the Bearer issued with it: the MCP URL it was issued for (and the token's fingerprint). */
export function issuedFor(stored: Pick<StoredRefresh, 'resource' | 'access_token_sha256'> | null): IssuedFor | null {
  if (!stored?.resource) return null;
  return { serverUrl: stored.resource, fingerprint: stored.access_token_sha256 ?? null };
}
