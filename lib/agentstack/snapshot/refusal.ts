/**
 * The one record of a Bearer the server refused (401, RFC 6750 `invalid_token` or no error code): the failure
 * record beside the capability snapshot, marked `unauthorized` with the token's fingerprint. Every view reads it
 * (state/derive.ts `refusedSince`): the token is expired from then on, renewed or signed in again, never "signed in".
 * Written by the catalog fetch, and by the online checks and the probe when they meet the same refusal.
 */
import { tokenFingerprint } from '../mcpJson/credential.js';
import { readSnapshotFailure, writeSnapshotFailure } from './store.js';

export interface RefusalArgs {
  /** `agentstack-capabilities-failed.json`. */
  failurePath: string;
  /** The MCP URL of the server that refused (mcpUrlFor). */
  serverUrl: string;
  token: string;
  /** What was refused, for the views (no secret: never the token). */
  message: string;
  now: number;
  /** The server refused the renewal too (`invalid_grant` to the refresh token): no refresh token is left. */
  renewalRefused?: boolean;
}

/** Records the refusal; a record that the server serves no catalog (not AgentStack) keeps saying so. Throws on a write error. */
export function recordRefusal(args: RefusalArgs): void {
  const before = readSnapshotFailure(args.failurePath);
  const notServed = before?.not_served === true && before.server_url === args.serverUrl;
  // A refusal of the same token recorded again (by --status --online, say) keeps saying its renewal was refused.
  const renewalRefused = args.renewalRefused === true
    || (before?.renewal_refused === true && before.server_url === args.serverUrl && before.token_sha256 === tokenFingerprint(args.token));
  writeSnapshotFailure(args.failurePath, {
    at: new Date(args.now).toISOString(), server_url: args.serverUrl, message: args.message, unauthorized: true,
    token_sha256: tokenFingerprint(args.token), ...(renewalRefused ? { renewal_refused: true } : {}), ...(notServed ? { not_served: true } : {}),
  });
}
