/**
 * Sign-in started by the session-start hook when the credential is unusable: join a running device flow, or request
 * a device code (bounded), record it in the device lock, and hand the rest of the flow to a detached poller (this
 * same bundle with `--device-poller`, its output in `agentstack-device.log`), which completes it exactly as
 * `device-code.mjs` does. The lock is handed over to the poller's pid, so it stays live while the poller runs and
 * becomes stale (replaceable) if the poller dies.
 */
import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { readLockFile } from '../../platform/fs/fileLock.js';
import { readDeviceLock } from './lock.js';
import { running, runningFlow, type SignInOutcome } from './running.js';
import type { CursorPaths } from '../server/paths.js';
import { processStartTime } from '../../platform/processStart.js';
import { POLLER_FLAG } from './pollerFlag.js';
import { scopePresetFrom } from '../settings/keys.js';
import { openRegularFileForAppend, writeFileAtomic } from '../../platform/fs/secureFile.js';
import type { DevicePollerHandoff } from './poller.js';
import type { HeldDeviceLock } from './lock.js';
import type { EffectiveSettings } from '../settings/effective.js';

export interface SignInArgs {
  paths: CursorPaths;
  env: NodeJS.ProcessEnv;
  /** The settings in effect, as the caller read them (where the refresh token is kept); read again when absent. */
  settings?: Pick<EffectiveSettings, 'rows'>;
  baseUrl: string;
  /** The origins a running flow's page may be on (lock.ts signInOrigins). */
  origins: string[];
  projectId: number | null;
  deadline: number;
  /** The bundle to run as the poller (this script). */
  script: string;
  now?: () => number;
}

/** Rewrites our lock with the poller's pid and start time (same nonce and code), so the lock lives as long as the poller. */
function handOverLock(path: string, pid: number): void {
  const current = readLockFile(path);
  if (!current || current.pid !== process.pid) return;
  writeFileAtomic(path, JSON.stringify({ ...current, pid, pid_start: processStartTime(pid) }));
}

/** The background sign-in log is appended to; past this size it starts afresh so it never grows without bound. */
const DEVICE_LOG_MAX_BYTES = 256 * 1024;

/** The log's descriptor; a log that is not a regular file (a symlink, a FIFO) stops the sign-in before any request. */
function openLog(path: string): number {
  try {
    return openRegularFileForAppend(path, { maxBytes: DEVICE_LOG_MAX_BYTES });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOTREGULAR' ? (error as Error).message : `${path} cannot be opened (${code ?? 'error'})`;
    throw new PluginError('io', `${why}; move it aside, then sign in with /agentstack-authorize`);
  }
}

function spawnPoller(args: SignInArgs, log: number, handoff: DevicePollerHandoff): number {
  const child = spawn(process.execPath, [args.script, POLLER_FLAG], {
    detached: true,
    stdio: ['pipe', log, log],
    env: args.env,
    windowsHide: true,
  });
  // The device code goes through a pipe, never argv or the environment (both visible to other tools).
  child.stdin!.end(JSON.stringify(handoff));
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  if (!child.pid) throw new Error('the poller did not start');
  return child.pid;
}

export async function startSignIn(args: SignInArgs): Promise<SignInOutcome> {
  const now = args.now ?? Date.now;
  const current = runningFlow(args.paths.deviceLock, now(), args.origins);
  if (current) return current;
  let lock: HeldDeviceLock | undefined;
  let log: number | null = null;
  try {
    log = openLog(args.paths.deviceLog);
    // Under credential-store = keychain, a keychain that cannot keep the token stops this before any code is asked for.
    const { assertStoreWorks, STORE_CHECK_BUDGET_MS } = await import('../credentials/storeCheck.js');
    await assertStoreWorks({ env: args.env, settings: args.settings, paths: args.paths, budgetMs: Math.max(500, Math.min(STORE_CHECK_BUDGET_MS, args.deadline - now() - 3_000)) });
    const { beginDeviceFlow } = await import('./flow.js');
    const { clientFromEnv } = await import('../auth/oauth.js');
    const client = clientFromEnv(args.env);
    const signal = AbortSignal.timeout(Math.max(500, args.deadline - now() - 500));
    const begun = await beginDeviceFlow({ paths: args.paths, baseUrl: args.baseUrl, client, scopes: { preset: scopePresetFrom(args.env) }, signal, now, lockStartMs: 60_000 });
    if (begun.kind === 'held') return running(begun.holder, args.origins);
    lock = begun.lock;
    const { device, endpoints, issuedAt } = begun;
    const pid = spawnPoller(args, log, { device, endpoints, clientId: client.clientId, baseUrl: args.baseUrl, projectId: args.projectId, issuedAt });
    handOverLock(args.paths.deviceLock, pid);
    const held = readDeviceLock(args.paths.deviceLock);
    return { kind: 'started', url: device.verification_uri_complete ?? device.verification_uri, code: device.user_code, expiresAt: held?.expires_at ?? new Date(issuedAt + device.expires_in * 1000).toISOString() };
  } catch (error) {
    lock?.release();
    return { kind: 'failed', message: quoteShort((error as Error)?.message ?? 'unexpected failure', 400), ...((error as { code?: unknown })?.code === 'keychain' ? { keychain: true } : {}) };
  } finally {
    if (log !== null) closeSync(log);
  }
}
