/**
 * The session-start hook, in order: normalize mcp.json, gate the credential, refresh it (single-flight), start a
 * sign-in when needed (decide.ts decides), refresh the capability snapshot, and build the status card. Only local
 * files are touched on the fast path (fresh token, fresh snapshot, identity cached); every network step lives in
 * net.ts, which the bundle carries uncompiled until `loadNet` first runs, and has its own timeout inside the hook's
 * deadline.
 */
import { readProjectPin } from '../../agentstack/auth/projectPin.js';
import { mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { agentstackEntry, classifyCredential, headerValue, refusedView, type CredentialView, type McpConfig, bearerOf, REFRESH_WINDOW_MS } from '../../agentstack/mcpJson/credential.js';
import { chooseBaseUrl, credentialsBelongTo, normalizeMcpConfig, parseProjectId, type IssuedFor } from '../../agentstack/mcpJson/entry.js';
import { isSignedOut } from '../../agentstack/auth/signedOut.js';
import { removeIfExists } from '../../platform/fs/secureFile.js';
import { readMcpConfigFile, symlinkNotice, updateMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { cursorPaths, type CursorPaths } from '../../agentstack/server/paths.js';
import { issuedFor, readRefreshFile, refreshBelongsTo, type StoredRefresh } from '../../agentstack/auth/refreshStore.js';
import { renderCard } from './card.js';
import { errText, left, type Ctx, type NetModule, type Run, type SessionStartOptions } from './context.js';
import { refreshStep } from './refresh.js';
import { accountOf, isUsable } from '../../agentstack/state/account.js';
import { SIGN_IN_STEP, stepFor, storyOf, storyText } from '../../agentstack/state/story.js';
import { tilde } from '../../platform/text/tilde.js';
import { projectOf, type Project } from '../../agentstack/state/project.js';
import { refusedSince, renewalRefusedSince } from '../../agentstack/state/derive.js';
import { readSnapshotFailure } from '../../agentstack/snapshot/store.js';
import { recordedExpiry } from '../../agentstack/auth/tokenFacts.js';
import { scrubSecrets } from '../../platform/text/scrub.js';
import { displayLines } from '../../platform/text/displayText.js';
import { runningFlow, type SignInOutcome } from '../../agentstack/signIn/running.js';
import { signInOrigins } from '../../agentstack/signIn/lock.js';
import { identityFor, readIdentity } from '../../agentstack/auth/identityCache.js';
import { snapshotStep } from './snapshot.js';
import { decideSignIn, signInTodo, type SignInFacts } from './decide.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import { apiTraceOn } from '../../agentstack/debug/switch.js';
import { AUTO_LOGIN_ENV, autoLoginDisabled, baseUrlIn, credentialStoreIn, envValueOf, projectIdIn } from '../../agentstack/settings/keys.js';
import { policyInEffect } from '../../agentstack/policy/effective.js';
import { policyNotice } from '../../agentstack/policy/describe.js';

export type { NetModule, SessionStartOptions } from './context.js';

export const SESSION_START_BUDGET_MS = 8_000;
/** How long a quiet run's card may be given again at most, whatever falls due. */
const QUIET_MAX_AGE_MS = 3_600_000;

/** Normalizes mcp.json (writing only on a change); returns what was read before (the gate needs to see a
 * placeholder Bearer that normalization removes) and after, or null when the file is unreadable. `held`: the file
 * was read but not cleaned (another writer kept it locked past the wait, or the lock or the write failed), and
 * nothing should be sent. */
async function normalize(path: string, options: { envBaseUrl: string | null; issued: IssuedFor | null }, ctx: Ctx): Promise<{ before: McpConfig; after: McpConfig; held?: true } | null> {
  let read: McpConfig | null = null;
  try {
    const { config } = readMcpConfigFile(path);
    read = config;
    if (!normalizeMcpConfig(config, options).changed) return { before: config, after: config };
    const result = await updateMcpConfigFile(path, (c) => normalizeMcpConfig(c, options), { timeoutMs: 2_000 });
    if (result.changed) ctx.notes.push('Cleaned up the agentstack entry in mcp.json (lean form).');
    const notice = symlinkNotice(result);
    if (notice) ctx.todo.push(notice);
    return { before: config, after: result.config };
  } catch (error) {
    // The credential in the file as read still tells who is signed in; only its cleanup waits for the next start.
    if (read) {
      ctx.todo.push(errText(error).split(path).join(tilde(path)));
      return { before: read, after: read, held: true };
    }
    // Unreadable: the card says the account's story (where the file breaks, and that no new sign-in is needed).
    return null;
  }
}

/** The project calls go to, decided as every view decides it (the pin read for the next sign-in included). */
function project(config: McpConfig, gate: CredentialView, pin: SignInFacts['pin'], env: NodeJS.ProcessEnv): Project {
  const pinned = 'projectId' in pin ? pin.projectId : null;
  return projectOf({
    header: parseProjectId(headerValue(agentstackEntry(config)?.headers, 'X-Project-ID')),
    pin: { projectId: pinned, source: pinned === null ? 'none' : projectIdIn(env) ? 'env' : 'file' },
    claimed: parseProjectId(gate.claims?.project_id),
  });
}

function readStored(path: string, ctx: Ctx): StoredRefresh | null {
  try {
    return readRefreshFile(path);
  } catch (error) {
    ctx.notes.push(errText(error));
    return null;
  }
}

/** The origins a running sign-in's page may be on: the server's, and the token endpoint we recorded for it. */
function pageOrigins(run: Run): string[] {
  return signInOrigins(run.baseUrl, [run.stored && refreshBelongsTo(run.stored, run.baseUrl) ? run.stored.token_endpoint : null]);
}

/** Step 4: the facts for decideSignIn, read locally (no network code is loaded for them). */
function signInFacts(run: Run, gate: CredentialView): SignInFacts {
  const { env } = run;
  let pin: SignInFacts['pin'];
  // The background sign-in keeps the project pin exactly as device-code would; a pin file that holds no pin is
  // ignored (and said), a bad AGENTSTACK_PROJECT_ID stops it.
  try {
    const read = readProjectPin(env, run.paths.project);
    pin = { projectId: read.projectId, ...(read.ignored ? { ignored: read.ignored } : {}) };
  } catch (error) {
    pin = { error: (error as Error).message };
  }
  return {
    state: gate.state,
    running: gate.state === 'ok' ? null : runningFlow(run.paths.deviceLock, run.ctx.now(), pageOrigins(run)),
    autoLoginOff: !autoLoginDisabled(env) ? null
      : envValueOf('auto-login', run.options.env) ? `${AUTO_LOGIN_ENV}=1` : 'auto-login is false in the settings',
    offline: run.offline,
    mcpUnreadable: run.unreadable,
    signedOut: gate.state !== 'ok' && isSignedOut(run.paths.signedOut),
    pin,
  };
}

/**
 * Under `credential-store = keychain`, the keychain's own step where it cannot keep a token (a sign-in would stop at
 * once); null otherwise. Looked at only where the card would suggest a sign-in under `keychain`.
 */
async function keychainTodo(run: Run): Promise<string | null> {
  if (credentialStoreIn(run.env) !== 'keychain' || !run.settings || left(run.ctx) <= 1_500) return null;
  const net = await run.net();
  try {
    return net ? await net.keychainStopsSignIn({ env: run.env, settings: run.settings, paths: run.paths, stored: run.stored, budgetMs: Math.min(2_000, left(run.ctx) - 1_000) }) : null;
  } catch {
    return null;
  }
}

/** Returns the facts it decided on (the card shows the project pin they read). */
async function signInStep(run: Run, gate: CredentialView): Promise<SignInFacts> {
  const facts = signInFacts(run, gate);
  const decision = decideSignIn(facts);
  if (decision.kind === 'none') return facts;
  if (decision.kind === 'tell') {
    run.ctx.todo.push(await keychainTodo(run) ?? decision.todo);
    return facts;
  }
  let outcome: SignInOutcome = decision.kind === 'join' ? decision.flow : { kind: 'failed', message: 'the network steps could not start' };
  if (decision.kind === 'start') {
    if ('ignored' in facts.pin && facts.pin.ignored) run.ctx.todo.push(facts.pin.ignored);
    const net = await run.net();
    if (net) outcome = await net.startSignIn({ paths: run.paths, env: run.env, settings: run.settings, baseUrl: run.baseUrl, origins: pageOrigins(run), projectId: decision.projectId, deadline: run.ctx.deadline, script: run.options.script, now: run.ctx.now });
  }
  run.ctx.todo.push(signInTodo(outcome, run.paths.deviceLog));
  return facts;
}

/** Step 6: who is signed in, from the cache, else (or after a snapshot refresh) from the server. */
async function whoStep(run: Run, gate: CredentialView, refreshedSnapshot: boolean): Promise<string | null> {
  const { ctx } = run;
  let who = identityFor(readIdentity(run.paths.identity), gate.claims?.sub, mcpUrlFor(run.baseUrl))?.who ?? null;
  if ((who && !refreshedSnapshot) || left(ctx) <= 1_000) return who;
  try {
    const net = await run.net();
    if (net) who = await net.lookUpIdentity({ baseUrl: run.baseUrl, token: gate.token!, identityPath: run.paths.identity, timeoutMs: Math.min(2_000, left(ctx) - 500), now: new Date(ctx.now()) });
  } catch (error) {
    run.options.log?.(`who: ${errText(error)}`);
  }
  return who;
}

/** The unreadable state's story, as diagnose and --status tell it. */
function unreadableStory(paths: CursorPaths, stored: StoredRefresh | null, baseUrl: string): string {
  let at: { line?: unknown; column?: unknown } | undefined;
  let problem: string | null = null;
  try {
    readMcpConfigFile(paths.mcpJson);
  } catch (error) {
    at = (error as { details?: typeof at }).details;
    problem = errText(error).split(paths.mcpJson).join(tilde(paths.mcpJson));
  }
  const mcpErrorAt = typeof at?.line === 'number' && typeof at.column === 'number' ? { line: at.line, column: at.column } : null;
  return storyText(storyOf({
    account: { state: 'unreadable', apiKey: false }, refreshable: stored !== null && refreshBelongsTo(stored, baseUrl),
    mcpJson: tilde(paths.mcpJson), mcpErrorAt, mcpProblem: problem, waiting: null,
  }));
}

function signedOutMeanwhile(mcpJson: string): boolean {
  try { return bearerOf(readMcpConfigFile(mcpJson).config) === null; } catch { return false; }
}

export async function runSessionStart(options: SessionStartOptions): Promise<string> {
  const now = options.now ?? Date.now;
  const ctx: Ctx = { notes: [], todo: [], deadline: now() + (options.budgetMs ?? SESSION_START_BUDGET_MS), now };
  // Environment > settings file > default; a broken settings file is one card line, never a failure.
  const settings = applySettings(options.env);
  const env = settings.env;
  ctx.notes.push(...settings.problems);
  const paths = cursorPaths(env);
  let envBaseUrl: string | null = null;
  let offline = false;
  try {
    envBaseUrl = baseUrlIn(env);
  } catch (error) {
    ctx.todo.push(`${errText(error)}; nothing was sent to any server.`);
    offline = true;
  }
  const stored = readStored(paths.refresh, ctx);
  const issued = issuedFor(stored);

  // 1. normalize (a credential issued for another server is dropped here: see credentialsBelongTo)
  const normalized = await normalize(paths.mcpJson, { envBaseUrl, issued }, ctx);
  const config = normalized?.after ?? {};
  if (normalized === null || normalized.held) offline = true;
  const baseUrl = chooseBaseUrl(agentstackEntry(config), envBaseUrl);

  // The network steps, loaded once when first needed; if they cannot load, each step says so and the card goes on.
  let netLoad: Promise<NetModule | null> | undefined;
  const net = () => (netLoad ??= options.loadNet().then((module) => {
    module.setProxyOptions(settings.proxy);
    if (apiTraceOn(env)) module.traceToDebugLog(env, 'session-start', (m) => options.log?.(m));
    return module;
  }).catch((error: unknown) => {
    ctx.notes.push(`The plugin's network steps could not start (${errText(error)}); only local checks ran.`);
    return null;
  }));
  const run: Run = { options, env, ctx, paths, baseUrl, offline, unreadable: normalized === null, stored, settings, net, readConfig: () => readMcpConfigFile(paths.mcpJson).config };
  if (normalized === null) ctx.todo.push(unreadableStory(paths, stored, baseUrl));

  // 2. gate: the file as it was (normalizing hides a placeholder Bearer), unless its credential was for another
  // server: normalizing dropped that one, and it must not be refreshed or used here.
  const gateConfig = credentialsBelongTo(agentstackEntry(normalized?.before ?? {}), baseUrl, issued) ? normalized?.before ?? {} : config;
  const storedExpiresAt = stored ? (refreshBelongsTo(stored, baseUrl) ? stored.expires_at : null) : recordedExpiry(paths.token, bearerOf(gateConfig));
  const seen = classifyCredential({ config: gateConfig, storedExpiresAt, now: now() });
  // A Bearer the server refused (its last catalog fetch answered 401 to it) counts as expired: renewed, or signed in again.
  const refusedToken = seen.token !== null && !seen.apiKey && refusedSince(readSnapshotFailure(paths.capabilitiesFailure), mcpUrlFor(baseUrl), seen.claims, seen.token);
  const first = refusedView(seen, refusedToken, now());

  // 3. refresh (or restore an entry taken out of mcp.json by hand while its refresh token is kept), 4. sign-in,
  // 5. snapshot, 6. who
  const restore = !offline && agentstackEntry(config) === undefined && stored !== null && refreshBelongsTo(stored, baseUrl) && !isSignedOut(paths.signedOut);
  const refreshed = await refreshStep(run, first, restore);
  const gate = refreshed.gate;
  // A restore that did not happen this time (the server unreachable, say) is tried again at the next start: no sign-in.
  const restorePending = restore && gate.state !== 'ok' && !refreshed.refusedGrant;
  const signInSeen = restorePending ? signInFacts(run, gate) : await signInStep(run, gate);
  const signedIn = gate.state === 'ok' && gate.token !== null && !offline;
  const { capabilities, refreshed: refreshedSnapshot, staleAt } = await snapshotStep({
    paths, baseUrl, serverUrl: mcpUrlFor(baseUrl), token: signedIn ? gate.token : null, now, timeLeftMs: () => left(ctx), net,
    pluginRoot: options.pluginRoot, notes: ctx.notes, todo: ctx.todo,
    refreshable: run.stored !== null && refreshBelongsTo(run.stored, baseUrl) && !refreshed.refusedGrant,
  });
  const who = signedIn ? await whoStep(run, gate, refreshedSnapshot) : null;
  // A sign-out that finished while this session start was signed in: nothing it fetched for that sign-in stays.
  if (signedIn && isSignedOut(paths.signedOut) && signedOutMeanwhile(paths.mcpJson)) {
    for (const path of [paths.capabilities, paths.identity]) {
      try { removeIfExists(path); } catch { /* best effort */ }
    }
  }

  const serverUrl = mcpUrlFor(baseUrl);
  const account = accountOf({
    readable: normalized !== null, entry: agentstackEntry(refreshed.config ?? gateConfig) !== undefined, credential: gate.state, apiKey: gate.apiKey,
    // A refused token not renewed keeps its own end on the card, as every other view shows it (its state says refused).
    expiresAtMs: refusedToken && gate.token === seen.token ? seen.expiresAtMs : gate.expiresAtMs,
    refreshable: run.stored !== null && refreshBelongsTo(run.stored, baseUrl) && !refreshed.refusedGrant,
    refused: refreshed.refusedGrant === true || (gate.token !== null && !gate.apiKey && refusedSince(readSnapshotFailure(paths.capabilitiesFailure), serverUrl, gate.claims, gate.token)),
    renewalRefused: refreshed.refusedGrant === true || (gate.token !== null && !gate.apiKey && renewalRefusedSince(readSnapshotFailure(paths.capabilitiesFailure), serverUrl, gate.claims, gate.token)),
    // A credential issued for another server was dropped by the normalization above: what is left belongs here.
    belongs: true, signedOut: gate.state !== 'ok' && isSignedOut(paths.signedOut), now: now(),
  });
  // A state that needs the person and nothing above said what to do (a refused token, say): the story's next step.
  if (!ctx.todo.length && !isUsable(account.state) && account.state !== 'unreadable') ctx.todo.push(stepFor(account.state) ?? SIGN_IN_STEP);
  const card = renderCard({
    serverUrl, account, who, project: project(refreshed.config ?? config, gate, signInSeen.pin, env),
    capabilities, policy: policyNotice(policyInEffect(settings.rows, settings.file, settings.managed)), pluginRoot: options.pluginRoot, notes: ctx.notes, todo: ctx.todo, now: now(),
  });
  // The card quotes the server (who, error messages, action names): a server that echoes a credential gets it
  // masked here, and no control, bidi or zero-width character reaches the agent.
  const text = displayLines(scrubSecrets(card, [gate.token, first.token, stored?.refresh_token]));
  if (options.onQuiet && netLoad === undefined && normalized !== null && !normalized.held && !ctx.notes.length && !ctx.todo.length) {
    const renewAt = gate.expiresAtMs === null || gate.apiKey ? Infinity : gate.expiresAtMs - REFRESH_WINDOW_MS;
    options.onQuiet({ card: text, expiresAt: account.expiresAt, until: Math.min(renewAt, staleAt ?? Infinity, now() + QUIET_MAX_AGE_MS) });
  }
  return text;
}
