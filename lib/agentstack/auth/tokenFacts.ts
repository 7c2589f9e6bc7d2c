/**
 * `agentstack-token.json`: when the access token ends, for a sign-in that brought no refresh token (the refresh
 * file records it otherwise). No secret: the expiry, the token's fingerprint (to tell it from a later Bearer) and the
 * resource it was issued for. Without it an opaque token's `expires_in` would be forgotten and a view would call an
 * expired token signed in.
 */
import { readTextIfExists, removeIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { tokenFingerprint } from '../mcpJson/credential.js';

export interface TokenFacts {
  expires_at: string | null;
  access_token_sha256: string;
  resource: string | null;
}

export function writeTokenFacts(path: string, facts: TokenFacts): void {
  writeFileAtomic(path, `${JSON.stringify(facts)}\n`, { mode: 0o600 });
}

export function clearTokenFacts(path: string): void {
  try { removeIfExists(path); } catch { /* a stale record names another token's fingerprint and is ignored */ }
}

/** The recorded expiry of `token` (ISO), or null when none is recorded for it; never throws. */
export function recordedExpiry(path: string, token: string | null): string | null {
  if (!token) return null;
  try {
    const text = readTextIfExists(path, { maxBytes: 4096 });
    if (!text) return null;
    const facts = JSON.parse(text) as Partial<TokenFacts>;
    return typeof facts.expires_at === 'string' && facts.access_token_sha256 === tokenFingerprint(token) ? facts.expires_at : null;
  } catch {
    return null;
  }
}
