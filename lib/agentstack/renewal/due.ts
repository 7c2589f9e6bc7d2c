/**
 * Renewing the token while the person works. The pre-MCP hook sees a Device Code Bearer due for renewal (inside the
 * refresh window, or expired with a refresh token on disk) and starts the single-flight refresh as a detached
 * process (the session-start bundle with RENEW_FLAG, run.ts), then answers at once: no network and no waiting on the hook's
 * path. A marker file started at most once a minute keeps a burst of calls from starting a process each; the
 * refresh's own lock keeps it to one request at the server whatever runs.
 */
import { needsRefresh, type CredentialView } from '../mcpJson/credential.js';

export { RENEW_EVERY_MS, startRenewal, type StartRenewalArgs } from './start.js';

export interface RenewalFacts {
  credential: Pick<CredentialView, 'state' | 'expiresAtMs' | 'apiKey' | 'token'>;
  /** A refresh token for this server is on disk. */
  refreshable: boolean;
  /** The entry's credential was issued for the server it points at. */
  belongs: boolean;
  signedOut: boolean;
  /** Automatic sign-in is off (the person asked for nothing to start by itself). */
  autoLoginOff: boolean;
  now: number;
}

/** Whether this credential can be renewed by the hook at all (when it falls due). Pure. */
export function canRenew(f: Omit<RenewalFacts, 'now'>): boolean {
  if (f.autoLoginOff || f.signedOut || !f.belongs || !f.refreshable) return false;
  return !f.credential.apiKey && f.credential.token !== null;
}

/** Whether the hook should start a renewal now. Pure. */
export function shouldRenew(f: RenewalFacts): boolean {
  return canRenew(f) && needsRefresh(f.credential, f.now);
}

