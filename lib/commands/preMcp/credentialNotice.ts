/**
 * The pre-MCP hook's word on an unusable Device Code credential. Cursor may drop session start's card, so the
 * person would otherwise learn nothing when `user-agentstack`'s token has expired, was refused, or a sign-in waits
 * for its code. Both AgentStack servers reach the hook named `agentstack` with the same URL, and a call through
 * Connect's own authorization may work: so the answer is `ask` (never `deny`), and at most once every ten minutes
 * per state (toldOnce.ts), so a person who works through Connect is not asked at every call.
 */
import { baseUrlIn } from '../../agentstack/settings/keys.js';
import { agentstackEntry, bearerOf, classifyCredential, type CredentialState, type McpConfig } from '../../agentstack/mcpJson/credential.js';
import { recordedExpiry } from '../../agentstack/auth/tokenFacts.js';
import { chooseBaseUrl, credentialsBelongTo } from '../../agentstack/mcpJson/entry.js';
import { issuedFor, readRefreshFile, refreshBelongsTo, type StoredRefresh } from '../../agentstack/auth/refreshStore.js';
import { isSignedOut } from '../../agentstack/auth/signedOut.js';
import { mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { CONNECT_SERVER_NAME, DEVICE_CODE_SERVER_NAME } from '../../agentstack/server/toolNames.js';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import { readSnapshotFailure } from '../../agentstack/snapshot/store.js';
import { runningFlow, type RunningFlow } from '../../agentstack/signIn/running.js';
import { signInOrigins } from '../../agentstack/signIn/lock.js';
import type { PreMcpAnswer } from './answer.js';
import { MCP_SETTINGS_PAGE } from '../../agentstack/plugin/cursorUi.js';
import { ACCOUNT_WORDS, accountOf, type AccountState } from '../../agentstack/state/account.js';
import { refusedSince, renewalRefusedSince } from '../../agentstack/state/derive.js';
import { tellOnce } from './toldOnce.js';
import { stepFor, waitingStep } from '../../agentstack/state/story.js';

export type UnusableReason = 'expired' | 'refused_renewable' | 'refused' | 'renewal_refused' | 'other_server' | 'no_credential' | 'no_capabilities';

export interface CredentialFacts {
  /** ~/.cursor/mcp.json has an agentstack entry (the Device Code server). */
  entry: boolean;
  /** The person signed out on purpose and has not signed in since. */
  signedOut: boolean;
  state: CredentialState;
  /** A stored refresh token for this server (not known to be refused: a refused one is removed). */
  refreshable: boolean;
  /** The entry's credential was issued for the server it points at. */
  belongs: boolean;
  /** The server answered 401 to this token (the last catalog fetch, made after the token was issued). */
  refused: boolean;
  /** The server refused this token's renewal too (`invalid_grant`). */
  renewalRefused?: boolean;
}

/** The account states the notice speaks of, and its word for each. */
const NOTICE_REASON: Partial<Record<AccountState, UnusableReason>> = {
  expired: 'expired', refused_renewable: 'refused_renewable', refused: 'refused', renewal_refused: 'renewal_refused', other_server: 'other_server', placeholder: 'no_credential', no_capabilities: 'no_capabilities',
};

/**
 * Why the Device Code credential cannot work, or null when it can (or when there is none to speak of): the account's
 * state as every view decides it (accountOf). A token inside the refresh window, or an expired one with a refresh
 * token, is renewed; an entry with no credential may be authorized by Cursor's own OAuth. Pure.
 */
export function unusableReason(f: CredentialFacts): UnusableReason | null {
  if (!f.entry || f.signedOut) return null;
  const { state } = accountOf({ ...f, readable: true, credential: f.state, apiKey: false, expiresAtMs: null, now: 0 });
  return NOTICE_REASON[state] ?? null;
}

const WHAT: Record<UnusableReason, string> = {
  expired: 'has expired and cannot be refreshed',
  refused_renewable: 'was refused by the server; the stored refresh token renews it',
  refused: 'was refused by the server',
  renewal_refused: 'has expired and the server refused to renew it',
  other_server: 'was issued for another server than the one its entry points at',
  no_credential: 'holds no usable token',
  no_capabilities: 'grants no capabilities',
};

const AUTHORIZE = 'run /agentstack-authorize';

/** The account state each reason is, so the notice names it with the word every view uses. */
const STATE_OF: Record<UnusableReason, AccountState> = {
  expired: 'expired', refused_renewable: 'refused_renewable', refused: 'refused', renewal_refused: 'renewal_refused', other_server: 'other_server', no_credential: 'placeholder', no_capabilities: 'no_capabilities',
};

/** The throttle's key: the state, and for a running sign-in its code (a new code is news). */
export function noticeKey(reason: UnusableReason, flow: RunningFlow | null): string {
  return flow ? `waiting:${flow.code ?? ''}` : reason;
}

/** The `ask` answer naming the state and the one next step. Pure. */
export function credentialNotice(reason: UnusableReason, flow: RunningFlow | null): PreMcpAnswer {
  const where = `Calls through ${DEVICE_CODE_SERVER_NAME} fail until then; allow this one only if it goes through Connect (${CONNECT_SERVER_NAME}).`;
  const never = 'Never ask for or paste a token.';
  if (flow) {
    // The link is shown only when it is on the server's or its authorization server's origin (running.ts).
    const step = flow.url && flow.code ? `open ${flow.url} and enter the code ${flow.code} (valid until ${flow.expiresAt})` : `${AUTHORIZE} to see its code and link`;
    return {
      permission: 'ask',
      user_message: `AgentStack (${ACCOUNT_WORDS[STATE_OF[reason]]}): ${waitingStep(flow)} ${where}`,
      agent_message: `AgentStack's Device Code credential (${DEVICE_CODE_SERVER_NAME}) ${WHAT[reason]}, and a sign-in is waiting for the person's approval: ask them to ${step}. ${never}`,
    };
  }
  return {
    permission: 'ask',
    user_message: `AgentStack (${ACCOUNT_WORDS[STATE_OF[reason]]}): the Device Code sign-in (${DEVICE_CODE_SERVER_NAME}) ${WHAT[reason]}. ${stepFor(STATE_OF[reason])} ${where}`,
    agent_message: reason === 'refused_renewable'
      ? `AgentStack's Device Code credential (${DEVICE_CODE_SERVER_NAME}) ${WHAT[reason]}: its calls answer 401 until the plugin has renewed it; no new sign-in is needed. ${never}`
      : `AgentStack's Device Code credential (${DEVICE_CODE_SERVER_NAME}) ${WHAT[reason]}: its calls answer 401. Run /agentstack-authorize (or ask the person to click Connect for AgentStack in ${MCP_SETTINGS_PAGE}) and relay the code it prints. ${never}`,
  };
}

function readStored(path: string): StoredRefresh | null {
  try { return readRefreshFile(path); } catch { return null; }
}

export interface NoticeArgs {
  paths: CursorPaths;
  config: McpConfig;
  /** The environment with the settings applied (AGENTSTACK_BASE_URL). */
  env: NodeJS.ProcessEnv;
  /** The server name the call carries, when it carries one. */
  serverName: string | null;
  now: number;
  log: (message: string) => void;
}

/** What the hook reads to decide (local files only, no network). */
export function credentialFacts(args: Omit<NoticeArgs, 'serverName' | 'log'>): { facts: CredentialFacts; baseUrl: string; stored: StoredRefresh | null } {
  const entry = agentstackEntry(args.config);
  let envBaseUrl: string | null = null;
  try { envBaseUrl = baseUrlIn(args.env); } catch { /* an invalid value names no server */ }
  const baseUrl = chooseBaseUrl(entry, envBaseUrl);
  const stored = entry ? readStored(args.paths.refresh) : null;
  const ours = stored !== null && refreshBelongsTo(stored, baseUrl);
  const view = classifyCredential({ config: args.config, storedExpiresAt: ours ? stored.expires_at : stored ? null : recordedExpiry(args.paths.token, bearerOf(args.config)), now: args.now });
  const failure = view.token && !view.apiKey ? readSnapshotFailure(args.paths.capabilitiesFailure) : null;
  const refused = refusedSince(failure, mcpUrlFor(baseUrl), view.claims, view.token);
  const renewalRefused = renewalRefusedSince(failure, mcpUrlFor(baseUrl), view.claims, view.token);
  return {
    facts: { entry: entry !== undefined, signedOut: entry !== undefined && isSignedOut(args.paths.signedOut), state: view.state, refreshable: ours, belongs: credentialsBelongTo(entry, baseUrl, issuedFor(stored)), refused, renewalRefused },
    baseUrl,
    stored,
  };
}

/** The answer for an AgentStack execute call when the Device Code credential cannot work and the person was not
 * told in the last ten minutes; else null (the call goes on to the usual checks). */
export function credentialNoticeFor(args: NoticeArgs): PreMcpAnswer | null {
  // A call Cursor names as the plugin's own server goes through Connect, which this credential does not touch.
  if (args.serverName === CONNECT_SERVER_NAME) return null;
  const { facts, baseUrl, stored } = credentialFacts(args);
  const reason = unusableReason(facts);
  if (reason === null) return null;
  const origins = signInOrigins(baseUrl, [stored && refreshBelongsTo(stored, baseUrl) ? stored.token_endpoint : null]);
  const flow = runningFlow(args.paths.deviceLock, args.now, origins);
  if (!tellOnce(args.paths.credentialTold, noticeKey(reason, flow), args.now)) return null;
  args.log(`ask: the Device Code credential ${WHAT[reason]}${flow ? '; a sign-in is waiting' : ''}`);
  return credentialNotice(reason, flow);
}
