/**
 * Who is signed in, cached in `agentstack-identity.json` (0600) so the status card of a session start that needs
 * no network names the person without calling `GET /api/auth/me`. Reading only: identity.ts asks the server and is
 * the one writer. Keyed by the token's `sub` and the server, so another account or server is looked up again.
 */
import { IdentitySchema, type Identity } from '../../schemas/state.js';
import { readTextIfExists } from '../../platform/fs/secureFile.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export type { Identity };

export function readIdentity(path: string): Identity | null {
  try {
    const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.identity });
    if (!text) return null;
    const parsed = IdentitySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The cached identity when it belongs to this token's subject on this server. */
export function identityFor(cached: Identity | null, sub: unknown, serverUrl: string): Identity | null {
  if (!cached || cached.server_url !== serverUrl) return null;
  if (typeof sub === 'string' && cached.sub && cached.sub !== sub) return null;
  return cached;
}
