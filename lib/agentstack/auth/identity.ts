/**
 * Who is signed in, cached in `agentstack-identity.json` (0600) so the status card of a session start that needs
 * no network names the person without calling `GET /api/auth/me`. Written whenever /me was asked anyway (snapshot
 * refresh, sign-in); keyed by the token's `sub` and the server, so another account or server is looked up again.
 */
import { decodeJwtClaims } from './jwt.js';
import { IdentitySchema, type Identity } from '../../schemas/state.js';
import { SECRET_FILE_MODE, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';

export type { Identity };

export function readIdentity(path: string): Identity | null {
  try {
    const text = readTextIfExists(path);
    if (!text) return null;
    const parsed = IdentitySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeIdentity(path: string, identity: Identity): void {
  writeFileAtomic(path, `${JSON.stringify(identity)}\n`, { mode: SECRET_FILE_MODE });
}

/** The cached identity when it belongs to this token's subject on this server. */
export function identityFor(cached: Identity | null, sub: unknown, serverUrl: string): Identity | null {
  if (!cached || cached.server_url !== serverUrl) return null;
  if (typeof sub === 'string' && cached.sub && cached.sub !== sub) return null;
  return cached;
}

/** Caches who holds `token` on `serverUrl`, keyed by the token's `sub`. */
export function rememberIdentity(path: string, args: { who: string; token: string; serverUrl: string; now?: Date }): void {
  const sub = decodeJwtClaims(args.token)?.sub;
  writeIdentity(path, { who: args.who, sub: typeof sub === 'string' ? sub : null, server_url: args.serverUrl, fetched_at: (args.now ?? new Date()).toISOString() });
}
