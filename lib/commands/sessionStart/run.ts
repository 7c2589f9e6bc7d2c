/**
 * The session-start hook, in the order: normalize mcp.json, gate the credential, refresh it (single-flight),
 * start a sign-in when needed, refresh the capability snapshot, and build the status card. Only local files are
 * touched on the fast path (fresh token, fresh snapshot, identity cached); every network step lives in net.ts, which
 * the bundle carries uncompiled until `loadNet` first runs, and has its own timeout inside the hook's deadline.
 */
import { readProjectPin, type ProjectPin } from '../../agentstack/auth/projectPin.js';
import { resolveBaseUrl } from '../../agentstack/server/baseUrl.js';
import { quoteShort, type PluginError } from '../../platform/errors.js';
import { classifyCredential, needsRefresh, needsSignIn, type CredentialView } from '../../agentstack/mcpJson/credential.js';
import { bearerOf, chooseBaseUrl, credentialsBelongTo, normalizeMcpConfig, parseProjectId, type McpConfig } from '../../agentstack/mcpJson/entry.js';
import { isSignedOut } from '../../agentstack/auth/signedOut.js';
import { removeIfExists } from '../../platform/fs/secureFile.js';
import { readMcpConfigFile, symlinkNotice, updateMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { readRefreshFile, type StoredRefresh } from '../../agentstack/auth/refreshStore.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { renderCard } from './card.js';
import { scrubSecrets } from '../../platform/text/scrub.js';
import { displayLines } from '../../platform/text/displayText.js';
import { runningFlow } from '../../agentstack/signIn/background.js';
import { identityFor, readIdentity, writeIdentity } from '../../agentstack/auth/identity.js';
import { readSnapshotMeta, snapshotIsStale } from '../../agentstack/snapshot/meta.js';

export type NetModule = typeof import('./net.js');

export interface SessionStartOptions {
  /** Loads the network steps (lazily evaluated: see lib/entries/session-start.ts). */
  loadNet: () => Promise<NetModule>;
  env: NodeJS.ProcessEnv;
  pluginRoot: string;
  /** This bundle, run again as the detached device poller. */
  script: string;
  /** Overall deadline from now (ms); the hook's hooks.json timeout is 20 s. */
  budgetMs?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export const SESSION_START_BUDGET_MS = 8_000;

interface Ctx {
  notes: string[];
  todo: string[];
  deadline: number;
  now: () => number;
}

const left = (ctx: Ctx) => ctx.deadline - ctx.now();
const errText = (error: unknown) => quoteShort((error as Error)?.message ?? String(error), 240);

/** Normalizes mcp.json (writing only on a change); returns what was read before (the gate needs to see a
 * placeholder Bearer that normalization removes) and after, or null when the file is unreadable. */
async function normalize(path: string, envBaseUrl: string | null, ctx: Ctx): Promise<{ before: McpConfig; after: McpConfig } | null> {
  try {
    const { config } = readMcpConfigFile(path);
    if (!normalizeMcpConfig(config, { envBaseUrl }).changed) return { before: config, after: config };
    const result = await updateMcpConfigFile(path, (c) => normalizeMcpConfig(c, { envBaseUrl }), { timeoutMs: 2_000 });
    if (result.changed) ctx.notes.push('Cleaned up the agentstack entry in mcp.json (lean form).');
    const notice = symlinkNotice(result);
    if (notice) ctx.todo.push(notice);
    return { before: config, after: result.config };
  } catch (error) {
    ctx.todo.push(`${errText(error)}`);
    return null;
  }
}

function project(config: McpConfig, gate: CredentialView): string | null {
  const entry = (config.mcpServers as Record<string, { headers?: Record<string, unknown> }> | undefined)?.[MCP_SERVER_KEY];
  const header = entry?.headers ? Object.entries(entry.headers).find(([k]) => k.toLowerCase() === 'x-project-id')?.[1] : undefined;
  const id = parseProjectId(header) ?? parseProjectId(gate.claims?.project_id);
  return id === null ? null : String(id);
}

function signedOutMeanwhile(mcpJson: string): boolean {
  try { return bearerOf(readMcpConfigFile(mcpJson).config) === null; } catch { return false; }
}

export async function runSessionStart(options: SessionStartOptions): Promise<string> {
  const now = options.now ?? Date.now;
  const env = options.env;
  const ctx: Ctx = { notes: [], todo: [], deadline: now() + (options.budgetMs ?? SESSION_START_BUDGET_MS), now };
  const paths = cursorPaths(env);
  let envBaseUrl: string | null = null;
  let offline = false;
  try {
    envBaseUrl = env.AGENTSTACK_BASE_URL?.trim() ? resolveBaseUrl(env) : null;
  } catch (error) {
    ctx.todo.push(`${errText(error)}; nothing was sent to any server.`);
    offline = true;
  }

  // 1. normalize
  const normalized = await normalize(paths.mcpJson, envBaseUrl, ctx);
  const config = normalized?.after ?? {};
  if (normalized === null) offline = true;
  const baseUrl = chooseBaseUrl((config.mcpServers as Record<string, unknown> | undefined)?.[MCP_SERVER_KEY], envBaseUrl);
  const serverUrl = `${baseUrl}/mcp`;

  // 2. gate
  let stored: StoredRefresh | null = null;
  try {
    stored = readRefreshFile(paths.refresh);
  } catch (error) {
    ctx.notes.push(errText(error));
  }
  // The gate reads the file as it was (normalizing hides a placeholder Bearer), unless its credential was for
  // another server: normalizing dropped that one, and it must not be refreshed or used here.
  const beforeEntry = (normalized?.before.mcpServers as Record<string, unknown> | undefined)?.[MCP_SERVER_KEY];
  const gateConfig = credentialsBelongTo(beforeEntry, baseUrl) ? normalized?.before ?? {} : config;
  let gate = classifyCredential({ config: gateConfig, storedExpiresAt: stored?.expires_at, now: now() });
  const originalToken = gate.token;
  let finalConfig = config;

  // The network steps, loaded once when first needed; if they cannot load, each step says so and the card goes on.
  let netLoad: Promise<NetModule | null> | undefined;
  const net = () => (netLoad ??= options.loadNet().catch((error: unknown) => {
    ctx.notes.push(`The plugin's network steps could not start (${errText(error)}); only local checks ran.`);
    return null;
  }));

  // 3. refresh
  const netForRefresh = !offline && needsRefresh(gate, now()) && stored ? await net() : null;
  if (netForRefresh) {
    const outcome = await netForRefresh.refreshSingleFlight({ paths, env, baseUrl, deadline: ctx.deadline, seenToken: gate.token, now });
    if (outcome.kind === 'refreshed') {
      finalConfig = readMcpConfigFile(paths.mcpJson).config;
      gate = classifyCredential({ config: finalConfig, now: now() });
      ctx.notes.push(outcome.byThisProcess ? 'Refreshed the access token.' : 'The access token was refreshed by another session.');
    } else if (outcome.kind === 'invalid_grant') {
      gate = { ...gate, state: 'expired' };
      ctx.notes.push('The stored refresh token was refused (invalid_grant) and removed; a new sign-in is needed.');
    } else if (outcome.kind === 'failed') {
      ctx.notes.push(`Could not refresh the token: ${outcome.message}.`);
    }
  }

  // 4. sign-in (never by itself after the person signed out, until they sign in again)
  const signedOut = gate.state !== 'ok' && isSignedOut(paths.signedOut);
  if (signedOut) {
    ctx.todo.push('You signed out of AgentStack on this machine; sign in again with /agentstack-authorize when you want to use it.');
  } else if (needsSignIn(gate.state) || gate.state === 'unsigned') {
    // Reading the lock needs no network code: an unsigned Cursor dir never loads the HTTP and OAuth clients.
    const running = runningFlow(paths.deviceLock, now());
    const disabled = env.AGENTSTACK_DISABLE_AUTO_LOGIN === '1';
    // The background sign-in keeps the project pin exactly as device-code would; a broken pin stops it instead.
    let pin: ProjectPin | PluginError;
    try { pin = readProjectPin(env, paths.project); } catch (error) { pin = error as PluginError; }
    const startWith = async (projectId: number | null) => {
      const module = await net();
      return module ? module.startSignIn({ paths, env, baseUrl, projectId, deadline: ctx.deadline, script: options.script, now }) : { kind: 'failed' as const, message: 'the network steps could not start' };
    };
    const result = running ?? (gate.state === 'unsigned' || disabled || offline ? null
      : pin instanceof Error ? { kind: 'failed' as const, message: pin.message }
      : await startWith(pin.projectId));
    if (result?.kind === 'failed') {
      ctx.todo.push(`Sign in with /agentstack-authorize (automatic sign-in could not start: ${result.message}).`);
    } else if (result?.code && result.url) {
      ctx.todo.push(`Sign in to AgentStack: open ${result.url} and enter the code ${result.code} (valid until ${result.expiresAt}). Cursor picks up the new token by itself; progress is logged in ${paths.deviceLog}.`);
    } else if (result) {
      ctx.todo.push('A sign-in is starting in another window; run /agentstack-authorize to see its code.');
    } else if (gate.state === 'unsigned') {
      // Never signed in: no browser or device code unasked, only the way to do it.
      ctx.todo.push('Connect AgentStack: click Connect next to AgentStack in Cursor\'s MCP settings, or run /agentstack-authorize.');
    } else if (disabled) {
      ctx.todo.push('Sign in again: run /agentstack-authorize (automatic sign-in is off: AGENTSTACK_DISABLE_AUTO_LOGIN=1).');
    } else {
      ctx.todo.push('Sign in again with /agentstack-authorize once the problem above is fixed.');
    }
  }

  // 5. snapshot (and who, when unknown)
  const signedIn = gate.state === 'ok' && gate.token !== null && !offline;
  let meta = readSnapshotMeta(paths.capabilities);
  let refreshedSnapshot = false;
  const netForSnapshot = signedIn && snapshotIsStale(meta, serverUrl, now()) && left(ctx) > 1_000 ? await net() : null;
  if (netForSnapshot) {
    const result = await netForSnapshot.refreshSnapshot({ path: paths.capabilities, baseUrl, token: gate.token!, timeoutMs: Math.min(4_000, left(ctx) - 500), now });
    if (result.kind === 'failed') {
      ctx.notes.push(`Could not refresh the capability snapshot: ${result.message}.`);
      if (result.unauthorized) ctx.todo.push('The server refused the token; run /agentstack-authorize to sign in again.');
    } else {
      refreshedSnapshot = true;
      if (result.kind === 'updated' && (result.diff.added.length || result.diff.removed.length)) {
        const parts = [];
        if (result.diff.added.length) parts.push(`added ${result.diff.added.join(', ')}`);
        if (result.diff.removed.length) parts.push(`removed ${result.diff.removed.join(', ')}`);
        ctx.notes.push(`The server's action list changed since the last snapshot: ${parts.join('; ')}.`);
      }
    }
    meta = readSnapshotMeta(paths.capabilities);
  }
  if (meta?.unapproved?.length) {
    ctx.todo.push(`Review the actions not yet approved (${meta.unapproved.slice(0, 10).join(', ')}${meta.unapproved.length > 10 ? ', …' : ''}); calls using them ask first. Approve them with: node "${options.pluginRoot}/scripts/diagnose-local.mjs" --approve-actions`);
  }
  let who: string | null = null;
  if (signedIn) {
    const idPath = paths.identity;
    who = identityFor(readIdentity(idPath), gate.claims?.sub, serverUrl)?.who ?? null;
    if ((!who || refreshedSnapshot) && left(ctx) > 1_000) {
      try {
        const module = await net();
        const fetched = module ? await module.fetchWho(baseUrl, gate.token!, Math.min(2_000, left(ctx) - 500)) : null;
        if (fetched) {
          who = fetched;
          writeIdentity(idPath, { who, sub: typeof gate.claims?.sub === 'string' ? gate.claims.sub : null, server_url: serverUrl, fetched_at: new Date(now()).toISOString() });
        }
      } catch (error) {
        options.log?.(`who: ${errText(error)}`);
      }
    }
  }

  // A sign-out that finished while this session start was signed in: nothing it fetched for that sign-in stays.
  if (signedIn && isSignedOut(paths.signedOut) && signedOutMeanwhile(paths.mcpJson)) {
    for (const path of [paths.capabilities, paths.identity]) {
      try { removeIfExists(path); } catch { /* best effort */ }
    }
  }

  const card = renderCard({
    signedOut, serverUrl, state: gate.state, apiKey: gate.apiKey, who, project: project(finalConfig, gate), expiresAtMs: gate.expiresAtMs,
    capabilities: meta ? meta.count : null, pluginRoot: options.pluginRoot, notes: ctx.notes, todo: ctx.todo, now: now(),
  });
  // The card quotes the server (who, error messages, action names): a server that echoes a credential gets it
  // masked here, and no control, bidi or zero-width character reaches the agent.
  return displayLines(scrubSecrets(card, [gate.token, originalToken, stored?.refresh_token]));
}
