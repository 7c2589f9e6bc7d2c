/**
 * The state of this machine's AgentStack account, decided once from facts read off the Cursor dir: one closed set of
 * states with one name each (the value every `--json` carries) and one wording (what every view shows). Pure: the
 * hooks import it, and every view renders what it returns.
 */
import { REFRESH_WINDOW_MS, type CredentialState } from '../mcpJson/credential.js';

export const ACCOUNT_STATES = [
  'signed_in', 'expiring', 'expired_renewable', 'expired', 'refused_renewable', 'refused', 'renewal_refused', 'entry_removed', 'signed_out',
  'never_signed_in', 'unreadable', 'placeholder', 'no_capabilities', 'other_server',
] as const;
export type AccountState = (typeof ACCOUNT_STATES)[number];

/** What each state is called wherever a person reads it. A view may say more around it, never another word. */
export const ACCOUNT_WORDS: Record<AccountState, string> = {
  signed_in: 'signed in',
  expiring: 'token expiring',
  expired_renewable: 'token expired, renewal due',
  expired: 'token expired',
  refused_renewable: 'token refused by the server, renewal due',
  refused: 'token refused by the server',
  renewal_refused: 'renewal refused',
  entry_removed: 'agentstack entry removed from mcp.json, restore due',
  signed_out: 'signed out',
  never_signed_in: 'not signed in',
  unreadable: 'mcp.json unreadable',
  placeholder: 'not signed in (a placeholder in mcp.json)',
  no_capabilities: 'key grants no capabilities',
  other_server: 'credential for another server',
};

/**
 * The account in one phrase, as every view says it: "signed in as …" for a usable credential (with its state's word
 * when the token is expiring or expired), else the state's word.
 */
export function accountText(account: Pick<Account, 'state' | 'apiKey'>, who: string | null): string {
  if (!isUsable(account.state)) return ACCOUNT_WORDS[account.state];
  const base = `signed in${who ? ` as ${who}` : ''}${account.apiKey ? ' (API key)' : ''}`;
  return account.state === 'signed_in' ? base : `${base}, ${ACCOUNT_WORDS[account.state]}`;
}

/** States in which AgentStack calls work now or after an automatic renewal: nothing for the person to do. */
export function isUsable(state: AccountState): boolean {
  return state === 'signed_in' || state === 'expiring' || state === 'expired_renewable';
}

export interface AccountFacts {
  /** mcp.json could be read (a missing file is readable: it has no entry). */
  readable: boolean;
  /** mcp.json has an `agentstack` entry. */
  entry: boolean;
  /** The credential's shape, from classifyCredential. */
  credential: CredentialState;
  apiKey: boolean;
  expiresAtMs: number | null;
  /** A refresh token for this server is stored. */
  refreshable: boolean;
  /** The server answered 401 to this token since it was issued. */
  refused: boolean;
  /** The server refused the stored refresh token's renewal of this token (`invalid_grant`); the refresh token is gone. */
  renewalRefused?: boolean;
  /** The entry's credential was issued for the server it points at. */
  belongs: boolean;
  /** The person's sign-out record is there. */
  signedOut: boolean;
  now: number;
}

export interface Account {
  state: AccountState;
  /** When the token expires (ISO, seconds), or null when unknown or not a token. */
  expiresAt: string | null;
  apiKey: boolean;
}

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function accountOf(f: AccountFacts): Account {
  const expiresAt = f.expiresAtMs === null || f.apiKey ? null : isoSeconds(f.expiresAtMs);
  return { state: stateOf(f), expiresAt, apiKey: f.apiKey };
}

function stateOf(f: AccountFacts): AccountState {
  if (!f.readable) return 'unreadable';
  if (f.entry && !f.belongs) return 'other_server';
  // The entry taken out of mcp.json by hand while a refresh token is kept: the next session start puts it back.
  if (!f.entry && f.refreshable && !f.signedOut) return 'entry_removed';
  if (f.renewalRefused && !f.refreshable && (f.credential === 'ok' || f.credential === 'expired')) return 'renewal_refused';
  switch (f.credential) {
    case 'ok':
      if (f.refused) return refusedState(f);
      return !f.apiKey && f.expiresAtMs !== null && f.expiresAtMs - f.now <= REFRESH_WINDOW_MS ? 'expiring' : 'signed_in';
    case 'expired':
      if (f.refused) return refusedState(f);
      return f.refreshable ? 'expired_renewable' : f.signedOut ? 'signed_out' : 'expired';
    case 'placeholder': return f.signedOut ? 'signed_out' : 'placeholder';
    case 'null_caps': return 'no_capabilities';
    case 'unsigned': return f.signedOut ? 'signed_out' : 'never_signed_in';
  }
}

/** A token the server refused: renewed when a refresh token for this server is stored, else signed in again. */
export function refusedState(f: Pick<AccountFacts, 'refreshable'>): AccountState {
  return f.refreshable ? 'refused_renewable' : 'refused';
}

/**
 * The token's expiry as a person reads it: "valid until …" only for a time still ahead, else "expired at …".
 * Every view that shows the expiry uses this one wording.
 */
export function expiryText(expiresAt: string | null, now: number): string {
  if (expiresAt === null) return 'no expiry known';
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return `expired at ${expiresAt}`;
  return `valid until ${expiresAt} (${timeLeftText(left)} left)`;
}

/** A time left (or past), as every view words it: whole minutes and hours, rounded down. */
export function timeLeftText(ms: number): string {
  const minutes = Math.floor(Math.abs(ms) / 60_000);
  return minutes < 1 ? 'less than a minute' : minutes < 120 ? `${minutes} min` : `${Math.floor(minutes / 60)} h`;
}
