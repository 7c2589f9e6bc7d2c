/**
 * The facts decided once from what read.ts read: the server, the account's state and expiry, the project calls go
 * to and why, who is signed in. Pure.
 */
import { mcpUrlFor } from '../server/baseUrl.js';
import { classifyCredential, headerValue, tokenFingerprint, type McpConfig } from '../mcpJson/credential.js';
import { chooseBaseUrl, credentialsBelongTo, parseProjectId } from '../mcpJson/entry.js';
import { issuedFor, refreshBelongsTo, type RefreshRecord } from '../auth/refreshStore.js';
import { identityFor, type Identity } from '../auth/identityCache.js';
import type { SnapshotFailure } from '../../schemas/state.js';
import { accountOf, isUsable, type Account } from './account.js';
import { noCallSince } from '../plugin/cursorUi.js';
import type { HookRuns } from '../plugin/hookRunRecord.js';
import { projectOf, type Project } from './project.js';
import { storyOf, type Story, type StoryFacts } from './story.js';

export interface DerivedState {
  baseUrl: string;
  serverUrl: string;
  account: Account;
  project: Project;
  /** Who holds the token, from the identity cache when it is this token's subject on this server. */
  who: string | null;
  /** The token's claims (unverified hints: scopes, subject); null without a token. */
  claims: Record<string, unknown> | null;
  /**
   * Signed in, but no AgentStack call has reached the pre-MCP hook since the token was issued: Cursor may have the
   * server turned off, or wait for the person's approval.
   */
  noCallSinceSignIn: boolean;
  /** The state's word, what is true and the next step, as every view says them. */
  story: Story;
}

/**
 * The server refused this token: the last catalog fetch from this server answered 401 for this very token (the
 * failure records its fingerprint), or, for a record without one, after the token was issued (a failure older than
 * the token says nothing about it).
 */
export function refusedSince(failure: SnapshotFailure | null | undefined, serverUrl: string, claims: Record<string, unknown> | null, token?: string | null): boolean {
  if (failure?.unauthorized !== true || failure.server_url !== serverUrl) return false;
  if (failure.token_sha256 && token) return failure.token_sha256 === tokenFingerprint(token);
  const issuedAtMs = typeof claims?.iat === 'number' ? claims.iat * 1000 : null;
  return issuedAtMs === null || Date.parse(failure.at) >= issuedAtMs;
}

/** The server refused this token's renewal too (`invalid_grant`), as the refresh recorded it. */
export function renewalRefusedSince(failure: SnapshotFailure | null | undefined, serverUrl: string, claims: Record<string, unknown> | null, token?: string | null): boolean {
  return failure?.renewal_refused === true && refusedSince(failure, serverUrl, claims, token);
}

export interface DeriveInput {
  now: number;
  mcp: { config: McpConfig | null; entry: Record<string, unknown> | null; error: string | null; errorAt?: StoryFacts['mcpErrorAt']; shown?: string };
  refresh: { expiresAt: string | null; record: RefreshRecord | null };
  pin: { text: string | null; env: string | null };
  snapshot: { failure?: SnapshotFailure | null };
  identity: Identity | null;
  signedOut: boolean;
  hookRuns?: HookRuns;
  /** A Device Code sign-in waiting for approval. */
  waiting?: StoryFacts['waiting'];
  /** The keychain as a view just found it, when it stops renewal or a sign-in. */
  keychain?: StoryFacts['keychain'];
}

export function deriveState(s: DeriveInput, envBaseUrl: string | null): DerivedState {
  const baseUrl = chooseBaseUrl(s.mcp.entry, envBaseUrl);
  const serverUrl = mcpUrlFor(baseUrl);
  const ours = s.refresh.record !== null && refreshBelongsTo(s.refresh.record, baseUrl);
  // Without a refresh record, `expiresAt` is what the sign-in recorded for this very Bearer (tokenFacts.ts).
  const view = classifyCredential({ config: s.mcp.config ?? {}, storedExpiresAt: ours || s.refresh.record === null ? s.refresh.expiresAt : null, now: s.now });
  const account = accountOf({
    readable: s.mcp.error === null,
    entry: s.mcp.entry !== null,
    credential: view.state,
    apiKey: view.apiKey,
    expiresAtMs: view.expiresAtMs,
    refreshable: ours,
    refused: view.token !== null && !view.apiKey && refusedSince(s.snapshot.failure, serverUrl, view.claims, view.token),
    renewalRefused: view.token !== null && !view.apiKey && renewalRefusedSince(s.snapshot.failure, serverUrl, view.claims, view.token),
    belongs: credentialsBelongTo(s.mcp.entry ?? undefined, baseUrl, issuedFor(s.refresh.record)),
    signedOut: s.signedOut,
    now: s.now,
  });
  const pinned = parseProjectId(s.pin.env ?? undefined) ?? parseProjectId(s.pin.text ?? undefined);
  const project = projectOf({
    header: parseProjectId(headerValue(s.mcp.entry?.headers, 'X-Project-ID')),
    pin: { projectId: pinned, source: pinned === null ? 'none' : s.pin.env ? 'env' : 'file' },
    claimed: parseProjectId(view.claims?.project_id),
  });
  const who = view.token ? identityFor(s.identity, view.claims?.sub, serverUrl)?.who ?? null : null;
  const issuedAt = typeof view.claims?.iat === 'number' ? view.claims.iat * 1000 : null;
  const noCallSinceSignIn = isUsable(account.state) && !account.apiKey && noCallSince(issuedAt, s.hookRuns?.['pre-mcp']?.at);
  const story = storyOf({ account, refreshable: ours, mcpJson: s.mcp.shown ?? '~/.cursor/mcp.json', mcpErrorAt: s.mcp.errorAt ?? null, mcpProblem: s.mcp.error, waiting: s.waiting ?? null, keychain: s.keychain ?? null });
  return { baseUrl, serverUrl, account, project, who, claims: view.claims, noCallSinceSignIn, story };
}
