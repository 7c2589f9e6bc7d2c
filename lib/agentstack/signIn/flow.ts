/**
 * The Device Code sign-in as one function with its I/O injected (browser opener, sleep, clock, events), so the
 * script, the session-start hook's detached poller and the tests all run the same code:
 * lock -> discover -> device code -> show + open -> poll -> mcp.json + refresh + snapshot -> unlock.
 */
import { resolveBaseUrl } from '../server/baseUrl.js';
import { assertOpenableUrl, openInBrowser, type Opener, type OpenOutcome } from './browser.js';
import { acquireDeviceLock, readDeviceLock } from './lock.js';
import { finishSignIn, type FinishResult } from './finish.js';
import { abortableSleep, pollUntilAuthorized, type PollEvent, type PollTiming, type Sleep } from './poll.js';
import { chooseBaseUrl } from '../mcpJson/entry.js';
import { readMcpConfigFile } from '../mcpJson/file.js';
import { clientFromEnv, discoverEndpoints, requestDeviceCode, type DeviceCodeResponse, type OAuthClient, type OAuthEndpoints } from '../auth/oauth.js';
import { cursorPaths, type CursorPaths } from '../server/paths.js';
import { readProjectPin } from '../auth/projectPin.js';
import type { DeviceLock } from '../../schemas/state.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { resolveScopes, type ScopeRequest } from '../auth/scopes.js';

export type FlowEvent =
  | { event: 'device_code'; user_code: string; verification_uri: string; verification_uri_complete: string | null; expires_in: number; interval: number }
  | { event: 'browser'; outcome: OpenOutcome | 'skipped'; url: string }
  | PollEvent
  | ({ event: 'authorized' } & FinishResult);

export type DeviceFlowOutcome = { status: 'authorized'; result: FinishResult } | { status: 'already_running'; holder: DeviceLock };

export interface FlowIo {
  signal?: AbortSignal;
  sleep?: Sleep;
  now?: () => number;
  timing?: Partial<PollTiming>;
  onEvent?: (event: FlowEvent) => void;
}

export interface DeviceFlowOptions extends FlowIo {
  env: NodeJS.ProcessEnv;
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
  const envBase = env.AGENTSTACK_BASE_URL?.trim() ? resolveBaseUrl(env) : null;
  const servers = config.mcpServers as Record<string, unknown> | undefined;
  const chosen = baseUrl ?? chooseBaseUrl(servers?.[MCP_SERVER_KEY], envBase);
  return { baseUrl: chosen, paths, projectId: readProjectPin(env, paths.project).projectId };
}

/** Discovery and the device authorization request; the URLs are checked before anyone sees them. */
export async function startDeviceFlow(args: { baseUrl: string; client: OAuthClient; scopes: ScopeRequest; signal?: AbortSignal }): Promise<{ endpoints: OAuthEndpoints; device: DeviceCodeResponse }> {
  const endpoints = await discoverEndpoints(args.baseUrl, { signal: args.signal });
  const scope = resolveScopes(args.scopes, endpoints.scopesSupported);
  const device = await requestDeviceCode({ endpoints, client: args.client, scope, signal: args.signal });
  assertOpenableUrl(device.verification_uri, 'verification URL');
  if (device.verification_uri_complete !== undefined) assertOpenableUrl(device.verification_uri_complete, 'verification URL');
  return { endpoints, device };
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
  const result = await finishSignIn({ tokens, baseUrl: args.baseUrl, endpoints: args.endpoints, client: args.client, paths: args.paths, projectId: args.projectId, signal: args.signal, now: args.now });
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
  const taken = acquireDeviceLock(paths.deviceLock, { expiresAt: new Date(now() + LOCK_START_MS), now });
  if (!taken.acquired) return { status: 'already_running', holder: await holderWithCode(paths.deviceLock, taken.holder, options) };
  const { lock } = taken;
  try {
    const { endpoints, device } = await startDeviceFlow({ baseUrl, client, scopes: options.scopes, signal: options.signal });
    const issuedAt = now();
    lock.update({
      expires_at: new Date(issuedAt + device.expires_in * 1000).toISOString(),
      verification_uri: device.verification_uri,
      verification_uri_complete: device.verification_uri_complete ?? null,
      user_code: device.user_code,
    });
    options.onEvent?.({
      event: 'device_code',
      user_code: device.user_code,
      verification_uri: device.verification_uri,
      verification_uri_complete: device.verification_uri_complete ?? null,
      expires_in: device.expires_in,
      interval: device.interval ?? 5,
    });
    const url = device.verification_uri_complete ?? device.verification_uri;
    const outcome = options.openBrowser === false ? 'skipped' : await openInBrowser(url, { opener: options.opener, env: options.env, platform: options.platform });
    options.onEvent?.({ event: 'browser', outcome, url });
    const result = await completeDeviceFlow({ ...options, device, endpoints, client, baseUrl, paths, projectId, issuedAt });
    return { status: 'authorized', result };
  } finally {
    lock.release();
  }
}
