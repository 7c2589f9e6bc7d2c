/**
 * The Device Code sign-in as one function with its I/O injected (browser opener, sleep, clock, events), so the
 * script, the session-start hook's detached poller and the tests all run the same code:
 * lock -> discover -> device code -> show + open -> poll -> mcp.json + refresh + snapshot -> unlock.
 */
import { baseUrlIn } from '../settings/keys.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { assertOpenableUrl, openInBrowser, type Opener, type OpenOutcome } from './browser.js';
import { MAX_DEVICE_LOCK_MS, acquireDeviceLock, markDeviceLockApproved, readDeviceLock, shownDeviceLock, signInOrigins, type HeldDeviceLock } from './lock.js';
import { finishSignIn, type FinishResult } from './finish.js';
import { abortableSleep, pollUntilAuthorized, type PollEvent, type PollTiming, type Sleep } from './poll.js';
import { chooseBaseUrl } from '../mcpJson/entry.js';
import { readMcpConfigFile } from '../mcpJson/file.js';
import { clientFromEnv, discoverEndpoints, discoverServer, requestDeviceCode, type DeviceCodeResponse, type OAuthClient, type OAuthEndpoints } from '../auth/oauth.js';
import { cursorPaths, type CursorPaths } from '../server/paths.js';
import { readProjectPin } from '../auth/projectPin.js';
import type { DeviceLock } from '../../schemas/state.js';
import type { EffectiveSettings } from '../settings/effective.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { resolveScopes, type ScopeRequest } from '../auth/scopes.js';

export type FlowEvent =
  | { event: 'device_code'; user_code: string; verification_uri: string; verification_uri_complete: string | null; expires_in: number; interval: number }
  | { event: 'browser'; outcome: OpenOutcome | 'skipped'; url: string }
  | PollEvent
  | { event: 'approved' }
  | { event: 'discovering'; server_url: string }
  /** Discovery found no OAuth metadata and the built-in AgentStack paths are used: said once, before the code. */
  | { event: 'discovery_note'; message: string }
  | ({ event: 'authorized' } & FinishResult);

export type DeviceFlowOutcome = { kind: 'authorized'; result: FinishResult } | { kind: 'already_running'; holder: DeviceLock };

export interface FlowIo {
  signal?: AbortSignal;
  sleep?: Sleep;
  now?: () => number;
  timing?: Partial<PollTiming>;
  onEvent?: (event: FlowEvent) => void;
}

export interface DeviceFlowOptions extends FlowIo {
  env: NodeJS.ProcessEnv;
  /** The settings in effect, as the caller read them once (credential-store and who set it); read again when absent. */
  settings?: Pick<EffectiveSettings, 'rows'>;
  /** What to ask for: a preset or an explicit list, matched to what the server advertises after discovery. */
  scopes: ScopeRequest;
  /** The server; default: AGENTSTACK_BASE_URL, else the agentstack entry's URL in mcp.json, else the default. */
  baseUrl?: string;
  /** false for --no-browser. */
  openBrowser?: boolean;
  opener?: Opener;
  platform?: NodeJS.Platform;
}

/** Which server to sign in to, and the checks that must pass before any request (mcp.json readable, pin valid). */
export function prepareSignIn(env: NodeJS.ProcessEnv, baseUrl?: string): { baseUrl: string; paths: CursorPaths; projectId: number | null } {
  const paths = cursorPaths(env);
  const { config } = readMcpConfigFile(paths.mcpJson);
  const envBase = baseUrlIn(env);
  const servers = config.mcpServers as Record<string, unknown> | undefined;
  const chosen = baseUrl ?? chooseBaseUrl(servers?.[MCP_SERVER_KEY], envBase);
  return { baseUrl: chosen, paths, projectId: readProjectPin(env, paths.project).projectId };
}

/** Discovery and the device authorization request; the URLs are checked before anyone sees them. */
export async function startDeviceFlow(args: { baseUrl: string; client: OAuthClient; scopes: ScopeRequest; signal?: AbortSignal }): Promise<{ endpoints: OAuthEndpoints; device: DeviceCodeResponse }> {
  const endpoints = await discoverEndpoints(args.baseUrl, { signal: args.signal });
  const scope = resolveScopes(args.scopes, endpoints);
  const device = await requestDeviceCode({ endpoints, client: args.client, scope, signal: args.signal });
  const mcpUrl = mcpUrlFor(args.baseUrl);
  assertOpenableUrl(device.verification_uri, 'verification URL', mcpUrl);
  if (device.verification_uri_complete !== undefined) assertOpenableUrl(device.verification_uri_complete, 'verification URL', mcpUrl);
  return { endpoints, device };
}

export type BegunFlow =
  | { kind: 'held'; holder: DeviceLock }
  | { kind: 'acquired'; lock: HeldDeviceLock; endpoints: OAuthEndpoints; device: DeviceCodeResponse; issuedAt: number };

/**
 * Takes the device lock and issues a device code, recording in the lock what a second caller shows (URL, code) and
 * how long it holds (the code's life, capped). When a live flow holds the lock, returns its holder instead. A
 * failure after the lock was taken releases it.
 */
export async function beginDeviceFlow(args: { paths: CursorPaths; baseUrl: string; client: OAuthClient; scopes: ScopeRequest; signal?: AbortSignal; now?: () => number; lockStartMs: number }): Promise<BegunFlow> {
  const now = args.now ?? Date.now;
  const taken = acquireDeviceLock(args.paths.deviceLock, { expiresAt: new Date(now() + args.lockStartMs), now });
  if (taken.kind === 'held') return taken;
  const { lock } = taken;
  try {
    const { endpoints, device } = await startDeviceFlow(args);
    const issuedAt = now();
    lock.update({
      expires_at: new Date(issuedAt + Math.min(device.expires_in * 1000, MAX_DEVICE_LOCK_MS)).toISOString(),
      verification_uri: device.verification_uri,
      verification_uri_complete: device.verification_uri_complete ?? null,
      user_code: device.user_code,
    });
    return { kind: 'acquired', lock, endpoints, device, issuedAt };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The running flow's lock as it may be shown here: its URL only on the server's origin or its authorization server's. */
async function shownHolder(holder: DeviceLock, baseUrl: string, signal?: AbortSignal): Promise<DeviceLock> {
  let authorization: string[] = [];
  try {
    const endpoints = await discoverServer(baseUrl, { signal, timeoutMs: 3_000 });
    authorization = [endpoints.issuer, ...(endpoints.deviceAuthorizationEndpoint ? [endpoints.deviceAuthorizationEndpoint] : [])];
  } catch { /* discovery unavailable: only the server's own origin is trusted */ }
  return shownDeviceLock(holder, signInOrigins(baseUrl, authorization));
}

export interface CompleteArgs extends FlowIo {
  device: DeviceCodeResponse;
  endpoints: OAuthEndpoints;
  client: OAuthClient;
  baseUrl: string;
  paths: CursorPaths;
  projectId: number | null;
  /** When the device code was issued (epoch ms); its deadline is this + expires_in. */
  issuedAt: number;
  /** The settings in effect (where the refresh token is kept); process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /** The settings in effect, as the caller read them once (credential-store and who set it); read again when absent. */
  settings?: Pick<EffectiveSettings, 'rows'>;
}

/** Polls an already-issued device code to the end and finishes the sign-in (the detached poller reuses this). */
export async function completeDeviceFlow(args: CompleteArgs): Promise<FinishResult> {
  const tokens = await pollUntilAuthorized({
    endpoints: args.endpoints,
    client: args.client,
    deviceCode: args.device.device_code,
    interval: args.device.interval,
    deadline: args.issuedAt + args.device.expires_in * 1000,
    signal: args.signal,
    sleep: args.sleep,
    now: args.now,
    timing: args.timing,
    onEvent: args.onEvent,
  });
  args.onEvent?.({ event: 'approved' });
  const approvedAt = (args.now ?? Date.now)();
  markDeviceLockApproved(args.paths.deviceLock, { userCode: args.device.user_code, at: new Date(approvedAt) });
  const result = await finishSignIn({ tokens, baseUrl: args.baseUrl, endpoints: args.endpoints, client: args.client, paths: args.paths, projectId: args.projectId, signal: args.signal, now: args.now, approvedAt, env: args.env, settings: args.settings });
  args.onEvent?.({ event: 'authorized', ...result });
  return result;
}

const LOCK_START_MS = 2 * 60_000;

/** A flow that just started has no code yet: wait a moment for it, so the second caller can show it. */
async function holderWithCode(path: string, holder: DeviceLock, io: FlowIo): Promise<DeviceLock> {
  const sleep = io.sleep ?? abortableSleep;
  let current = holder;
  for (let i = 0; i < 15 && !current.user_code; i++) {
    await sleep(200, io.signal);
    current = readDeviceLock(path) ?? current;
  }
  return current;
}

export async function runDeviceFlow(options: DeviceFlowOptions): Promise<DeviceFlowOutcome> {
  const now = options.now ?? Date.now;
  const { baseUrl, paths, projectId } = prepareSignIn(options.env, options.baseUrl);
  const client = clientFromEnv(options.env);
  options.onEvent?.({ event: 'discovering', server_url: mcpUrlFor(baseUrl) });
  const begun = await beginDeviceFlow({ paths, baseUrl, client, scopes: options.scopes, signal: options.signal, now, lockStartMs: LOCK_START_MS });
  if (begun.kind === 'held') {
    const holder = await holderWithCode(paths.deviceLock, begun.holder, options);
    return { kind: 'already_running', holder: await shownHolder(holder, baseUrl, options.signal) };
  }
  const { lock, endpoints, device, issuedAt } = begun;
  try {
    if (endpoints.note) options.onEvent?.({ event: 'discovery_note', message: endpoints.note });
    options.onEvent?.({
      event: 'device_code',
      user_code: device.user_code,
      verification_uri: device.verification_uri,
      verification_uri_complete: device.verification_uri_complete ?? null,
      expires_in: device.expires_in,
      interval: device.interval ?? 5,
    });
    const url = device.verification_uri_complete ?? device.verification_uri;
    const outcome = options.openBrowser === false ? 'skipped' : await openInBrowser(url, { mcpUrl: mcpUrlFor(baseUrl), opener: options.opener, env: options.env, platform: options.platform });
    options.onEvent?.({ event: 'browser', outcome, url });
    const result = await completeDeviceFlow({ ...options, device, endpoints, client, baseUrl, paths, projectId, issuedAt });
    return { kind: 'authorized', result };
  } finally {
    lock.release();
  }
}
