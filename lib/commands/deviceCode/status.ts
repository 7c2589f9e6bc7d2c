/**
 * `device-code --status`: a short answer to "am I signed in, to what, with what", like `gh auth status`. Read from
 * this machine's files only; `--online` also asks the server who holds the token. At most ten lines; the full
 * check stays diagnose-local. Exit 0 signed in, 1 not (with what to do).
 *
 * The card is a list of sections (`STATUS_SECTIONS`), each a line and a JSON field from the same facts, so a new
 * fact (a rule in effect, say) is one more entry there.
 */
import { baseUrlIn } from '../../agentstack/settings/keys.js';
import { grantedScopes, uncoveredActions } from '../../agentstack/auth/scopes.js';
import { maskSecret } from '../../platform/text/mask.js';
import { quoteShort } from '../../platform/errors.js';
import { applySettings, type EffectiveSettings } from '../../agentstack/settings/effective.js';
import { NO_POLICY, policyInEffect } from '../../agentstack/policy/effective.js';
import { describePolicy } from '../../agentstack/policy/describe.js';
import { tilde } from '../../platform/text/tilde.js';
import { readCursorState, type CursorState } from '../../agentstack/state/read.js';
import { accountText, expiryText, isUsable, refusedState, type AccountState } from '../../agentstack/state/account.js';
import { storyOf, type Story } from '../../agentstack/state/story.js';
import { nodeEndOfLifeText, nodePastEndOfLife } from '../../agentstack/plugin/nodeReleases.js';
import { projectText, type Project } from '../../agentstack/state/project.js';
import { mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { ENABLE_STEP } from '../../agentstack/plugin/cursorUi.js';
import { placementText, type RefreshPlacement } from '../../agentstack/auth/refreshStore.js';
import type { CredentialStoreFacts } from '../../agentstack/credentials/storeFacts.js';
import { lookAtKeychainHere, type KeychainLook } from '../../agentstack/credentials/keychainLook.js';

export interface StatusFacts {
  server_url: string;
  state: AccountState;
  /** The Bearer masked gh-style (never more than its first 4 characters), or null. */
  token: string | null;
  api_key: boolean;
  who: string | null;
  expires_at: string | null;
  refresh_stored: boolean;
  /** Where the refresh token is kept and why (never the token). */
  refresh_store: RefreshPlacement | null;
  /** The credential-store setting, who set it, and whether renewal may use the token where it is. */
  credential_store: CredentialStoreFacts;
  scopes: string[] | null;
  project: Project;
  actions: number | null;
  uncovered_actions: number | null;
  unapproved_actions: number;
  /** What could not be read, each a line for the person. */
  problems: string[];
  /** The per-action rules in effect and where each is set (settings `policy`, `ask-actions`, `deny-actions`). */
  policy: string;
  /** `--online`: what the server said about the token (null: not asked; `accepted` null: no answer). */
  online: { accepted: boolean | null; message: string } | null;
  /** The organization's managed settings: its file and the keys in effect from it; null without one. */
  managed: { path: string; keys: string[]; trusted: boolean; broken: boolean } | null;
  /** Signed in, and no AgentStack call reached the hook since: Cursor may have the server off or want approval. */
  no_call_since_sign_in: boolean;
  /** The state's story (what is true, the next step), from the one model. */
  story: Story;
  /** The Node running this, and the end of life it is past (null while supported). */
  node: { version: string; end_of_life: string | null };
  now: number;
}

/** One line of the card (null: nothing to show) and its field in `--json`. */
export interface StatusSection {
  key: string;
  line(facts: StatusFacts): string | null;
  json(facts: StatusFacts): unknown;
}

/** What renews the token, and where that refresh token is kept. */
function renewalText(f: StatusFacts): string {
  if (!f.refresh_stored) return '';
  if (!f.credential_store.usable) return ` (no renewal: ${f.credential_store.reason})`;
  // Where it is kept, as the credential store's facts say it now (the record's reason may be out of date).
  const store = f.credential_store;
  const kept = store.refresh_in ? `; kept in ${store.refresh_in}${store.reason ? `: ${store.reason}` : ''}` : f.refresh_store ? `; kept in ${placementText(f.refresh_store)}` : '';
  return ` (a stored refresh token renews it${kept})`;
}

export const isSignedIn = (facts: StatusFacts) => isUsable(facts.state) && facts.online?.accepted !== false;

/** The card, in order. Rules in effect go last; a new kind of rule is a new entry here. */
export const STATUS_SECTIONS: StatusSection[] = [
  { key: 'server_url', line: (f) => `  Server: ${f.server_url}`, json: (f) => f.server_url },
  {
    key: 'signed_in',
    line: (f) => `  Account: ${accountText({ state: f.state, apiKey: f.api_key }, f.who)}${f.token ? ` (token ${f.token})` : ''}`,
    json: (f) => isSignedIn(f),
  },
  { key: 'state', line: () => null, json: (f) => f.state },
  { key: 'who', line: () => null, json: (f) => f.who },
  { key: 'token', line: () => null, json: (f) => f.token },
  {
    key: 'expires_at',
    line: (f) => (f.token ? `  Token: ${expiryText(f.expires_at, f.now)}${renewalText(f)}` : null),
    json: (f) => f.expires_at,
  },
  { key: 'refresh_stored', line: () => null, json: (f) => f.refresh_stored },
  // Where the refresh token is kept rides on the token line: the card stays within its ten lines.
  { key: 'refresh_store', line: () => null, json: (f) => f.refresh_store },
  { key: 'credential_store', line: () => null, json: (f) => f.credential_store },
  {
    key: 'scopes',
    line: (f) => {
      if (!f.token) return null;
      if (!f.scopes) return '  Scopes: not listed by the token';
      const left = f.uncovered_actions && f.actions ? ` (${f.uncovered_actions} of the ${f.actions} actions need a scope not granted)` : '';
      return `  Scopes: ${f.scopes.map((s) => quoteShort(s, 60)).join(' ')}${left}`;
    },
    json: (f) => f.scopes,
  },
  { key: 'uncovered_actions', line: () => null, json: (f) => f.uncovered_actions },
  { key: 'project', line: (f) => `  Project: ${projectText(f.project)}`, json: (f) => ({ id: f.project.id, reason: f.project.reason, source: f.project.source, next_sign_in: f.project.nextSignIn }) },
  { key: 'project_id', line: () => null, json: (f) => f.project.id },
  {
    key: 'actions',
    line: (f) => {
      if (f.actions === null) return '  Rules: no capability snapshot yet; agentstack calls are not checked until a session start saves one';
      const waiting = f.unapproved_actions ? `; ${f.unapproved_actions} new action${f.unapproved_actions === 1 ? '' : 's'} ask before use` : '';
      return `  Rules: each agentstack call is checked against ${f.actions} known actions${waiting}`;
    },
    json: (f) => f.actions,
  },
  { key: 'unapproved_actions', line: () => null, json: (f) => f.unapproved_actions },
  { key: 'policy', line: (f) => `  Per-action rules: ${f.policy}`, json: (f) => f.policy },
  {
    key: 'managed',
    line: (f) => (f.managed ? `  Managed by your organization: ${f.managed.broken ? 'the file cannot be read, so every AgentStack call asks' : f.managed.keys.join(', ') || 'nothing'}${f.managed.trusted || f.managed.broken ? '' : ' (only its rules: others can change the file)'} (${f.managed.path})` : null),
    json: (f) => f.managed,
  },
  { key: 'online', line: (f) => (f.online ? `  Server check: ${f.online.message}` : null), json: (f) => f.online },
  { key: 'no_call_since_sign_in', line: (f) => (f.no_call_since_sign_in ? `  Cursor: no AgentStack call since this sign-in. ${ENABLE_STEP}` : null), json: (f) => f.no_call_since_sign_in },
  {
    key: 'node',
    line: (f) => {
      if (f.node.end_of_life === null) return null;
      const { summary, fix } = nodeEndOfLifeText(f.node.version, { endOfLife: f.node.end_of_life }, f.now);
      return `  ${summary}. ${fix}.`;
    },
    json: (f) => f.node,
  },
  { key: 'problems', line: () => null, json: (f) => f.problems },
  { key: 'truth', line: () => null, json: (f) => f.story.truth },
];

/** The facts from the one model of this machine's state; nothing here touches the network. The token never leaves. */
export function statusFacts(state: CursorState): { facts: StatusFacts; token: string | null; baseUrl: string } {
  const { derived } = state;
  const token = state.mcp.config ? state.bearer : null;
  const problems: string[] = [];
  if (state.mcp.error) problems.push(state.mcp.error);
  if (state.refresh.error) problems.push(state.refresh.error);
  if (state.snapshot.error) problems.push(`The capability snapshot ${tilde(state.paths.capabilities)} ${state.snapshot.error}`);
  const snapshot = state.snapshot.data;
  const scopes = token ? grantedScopes(derived.claims, state.refresh.scope ?? undefined) : null;
  const facts: StatusFacts = {
    server_url: derived.serverUrl,
    state: derived.account.state,
    token: token ? maskSecret(token) : null,
    api_key: derived.account.apiKey,
    who: derived.who,
    expires_at: derived.account.expiresAt,
    refresh_stored: Boolean(state.refresh.record && !state.refresh.legacy),
    refresh_store: state.refresh.placement ?? null,
    credential_store: state.credentialStore,
    scopes,
    project: derived.project,
    actions: snapshot ? snapshot.actions.length : null,
    uncovered_actions: snapshot && scopes ? uncoveredActions(snapshot.actions, scopes) : null,
    unapproved_actions: snapshot?.unapproved?.length ?? 0,
    problems,
    policy: NO_RULES,
    online: null,
    no_call_since_sign_in: derived.noCallSinceSignIn,
    story: derived.story,
    node: { version: process.versions.node, end_of_life: nodePastEndOfLife(process.versions.node, state.now)?.endOfLife ?? null },
    managed: state.settings.managed.exists ? { path: state.settings.managed.path, keys: state.settings.managed.keys, trusted: state.settings.managed.trusted === true, broken: state.settings.managed.broken } : null,
    now: state.now,
  };
  return { facts, token, baseUrl: derived.baseUrl };
}

function envBaseUrl(env: NodeJS.ProcessEnv): string | null {
  try { return baseUrlIn(env); } catch { return null; }
}

/**
 * Reads the state and its status facts: `env` is the environment with the settings applied, `settings` the settings
 * in effect with their origins (read again from `env` when not given, where a value of the settings file looks like
 * its variable).
 */
export function readStatus(env: NodeJS.ProcessEnv, now = Date.now(), settings?: EffectiveSettings, keychain?: KeychainLook): { facts: StatusFacts; token: string | null; baseUrl: string } {
  return statusFacts(readCursorState({ env, envBaseUrl: envBaseUrl(env), now, settings, keychain }));
}

/** The next step of the state's story (null: nothing to do). */
export function nextStep(facts: StatusFacts): string | null {
  return facts.story.next;
}

const MAX_LINES = 10;
const NO_RULES = describePolicy({ kind: 'ok', policy: NO_POLICY });

/** The card as lines (at most ten, problems included) and as one JSON object. */
export function renderStatus(facts: StatusFacts): { lines: string[]; json: Record<string, unknown> } {
  let head = isSignedIn(facts) ? '✓ AgentStack: signed in' : `X AgentStack: ${facts.story.word}`;
  const body = STATUS_SECTIONS.map((s) => s.line(facts)).filter((l): l is string => l !== null);
  const next = nextStep(facts);
  const tail = next === null ? [] : [`  ${next}`];
  // More lines than ten (rules, a server check, an old Node): lines that belong together share one, in this order.
  const fold = (from: string, into: string, join: (a: string, b: string) => string) => {
    const i = body.findIndex((l) => l.startsWith(from));
    const j = body.findIndex((l) => l.startsWith(into));
    if (i < 0 || j < 0) return;
    body[j] = join(body[j]!, body[i]!.trim());
    body.splice(i, 1);
  };
  const over = () => 1 + body.length + tail.length > MAX_LINES;
  if (over()) fold('  Per-action rules: ', '  Rules: ', (a, b) => `${a}; ${b[0]!.toLowerCase()}${b.slice(1)}`);
  if (over()) fold('  Managed by your organization: ', '  Rules: ', (a, b) => `${a}; ${b[0]!.toLowerCase()}${b.slice(1)}`);
  if (over() && body[0]?.startsWith('  Server: ')) head = `${head} (${body.shift()!.trim().replace(/^Server: /, 'server ')})`;
  const room = Math.max(0, MAX_LINES - 1 - body.length - tail.length);
  const lines = [head, ...body, ...facts.problems.slice(0, room).map((p) => `  ! ${quoteShort(p, 200)}`), ...tail];
  const json: Record<string, unknown> = {};
  for (const section of STATUS_SECTIONS) json[section.key] = section.json(facts);
  json.next_step = next;
  return { lines, json };
}

export interface StatusOptions {
  env: NodeJS.ProcessEnv;
  json: boolean;
  online: boolean;
  streams: { stdout: { write(text: string): unknown } };
  now?: number;
}

/**
 * `--online`: asks the server who holds the token (one bounded request); a refusal means signed out. `refused`:
 * the answer said the token itself is no good (401 `invalid_token` or no error code), which is recorded.
 */
async function checkOnline(baseUrl: string, token: string): Promise<{ accepted: boolean | null; message: string; who?: string; refused?: boolean }> {
  const { fetchIdentity } = await import('../../agentstack/auth/identity.js');
  try {
    const { who } = await fetchIdentity({ baseUrl, token, timeoutMs: 5_000 });
    return { accepted: true, message: `the server accepts the token (${who})`, who };
  } catch (error) {
    const details = (error as { details?: { status?: unknown; refused?: unknown } }).details;
    const status = details?.status;
    if (status === 401 || status === 403) return { accepted: false, message: `the server refused the token (HTTP ${status})`, refused: details?.refused === true };
    if (status === 404) {
      // No /api/auth/me: not AgentStack. The MCP endpoint itself judges the token.
      try {
        const { mcpInitializeStatus } = await import('../../agentstack/auth/identity.js');
        const mcp = await mcpInitializeStatus({ baseUrl, token, timeoutMs: 5_000 });
        if (mcp.status === 200) return { accepted: true, message: 'the MCP server accepts the token (initialize)' };
        if (mcp.status === 401 || mcp.status === 403) return { accepted: false, message: `the MCP server refused the token (HTTP ${mcp.status})`, refused: mcp.refused };
        return { accepted: null, message: `no verdict: MCP initialize answered HTTP ${mcp.status}` };
      } catch (mcpError) {
        return { accepted: null, message: `no verdict: ${quoteShort((mcpError as Error).message, 160)}` };
      }
    }
    return { accepted: null, message: `no verdict: ${quoteShort((error as Error).message, 160)}` };
  }
}

export async function runStatus(options: StatusOptions): Promise<number> {
  const settings = applySettings(options.env);
  const { facts, token, baseUrl } = readStatus(settings.env, options.now, settings, await lookAtKeychainHere({ env: settings.env, settings }));
  facts.policy = describePolicy(policyInEffect(settings.rows, settings.file, settings.managed), (path) => tilde(path));
  facts.problems.unshift(...settings.problems);
  if (options.online && token && (facts.state === 'expired_renewable' || facts.state === 'expired' || facts.state === 'renewal_refused')) {
    // An expired token is refused by any server: asking would only say so. Its story's next step comes first.
    facts.online = { accepted: null, message: facts.state === 'renewal_refused' ? 'not asked: the server refused to renew the token' : 'not asked: the token has expired' };
  } else if (options.online && token) {
    const { setProxyOptions } = await import('../../platform/net/http.js');
    setProxyOptions(settings.proxy);
    const online = await checkOnline(baseUrl, token);
    facts.online = { accepted: online.accepted, message: online.message };
    if (online.who) facts.who = online.who;
    if (online.refused) {
      // Recorded as session start records it: every later view says refused, and the token is renewed or signed in again.
      const { recordRefusal } = await import('../../agentstack/snapshot/refusal.js');
      try {
        recordRefusal({ failurePath: cursorPaths(settings.env).capabilitiesFailure, serverUrl: mcpUrlFor(baseUrl), token, message: online.message, now: options.now ?? Date.now() });
      } catch { /* this answer says it; the next check asks again */ }
    }
    if (online.accepted === false) {
      // The server's word wins: the token is refused, whatever the files say, and the story is that state's.
      facts.state = refusedState({ refreshable: facts.refresh_stored });
      facts.story = storyOf({ account: { state: facts.state, apiKey: facts.api_key }, refreshable: facts.refresh_stored, mcpJson: '~/.cursor/mcp.json', mcpErrorAt: null, waiting: null });
    }
  }
  const { lines, json } = renderStatus(facts);
  options.streams.stdout.write(options.json ? `${JSON.stringify(json)}\n` : `${lines.join('\n')}\n`);
  return isSignedIn(facts) ? 0 : 1;
}
