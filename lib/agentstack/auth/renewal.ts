/**
 * Renewing the token while the person works. The pre-MCP hook sees a Device Code Bearer due for renewal (inside the
 * refresh window, or expired with a refresh token on disk) and starts the single-flight refresh as a detached
 * process (the session-start bundle with RENEW_FLAG), then answers at once: no network and no waiting on the hook's
 * path. A marker file started at most once a minute keeps a burst of calls from starting a process each; the
 * refresh's own lock keeps it to one request at the server whatever runs.
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { needsRefresh, type CredentialView } from '../mcpJson/credential.js';
import { builtin } from '../../platform/builtin.js';
import { RENEW_FLAG } from '../signIn/pollerFlag.js';
import type { CursorPaths } from '../server/paths.js';

/** A renewal started less than this long ago is not started again. */
export const RENEW_EVERY_MS = 60_000;

export interface RenewalFacts {
  credential: Pick<CredentialView, 'state' | 'expiresAtMs' | 'apiKey' | 'token'>;
  /** A refresh token for this server is on disk. */
  refreshable: boolean;
  /** The entry's credential was issued for the server it points at. */
  belongs: boolean;
  signedOut: boolean;
  /** Automatic sign-in is off (the person asked for nothing to start by itself). */
  autoLoginOff: boolean;
  now: number;
}

/** Whether the hook should start a renewal now. Pure. */
export function shouldRenew(f: RenewalFacts): boolean {
  if (f.autoLoginOff || f.signedOut || !f.belongs || !f.refreshable) return false;
  if (f.credential.apiKey || f.credential.token === null) return false;
  return needsRefresh(f.credential, f.now);
}

/** Claims the marker: true when no renewal was started in the last minute (and now one is). */
function claimMarker(path: string, now: number): boolean {
  try {
    writeFileSync(path, '', { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  try {
    const stat = statSync(path);
    if (!stat.isFile() || now - stat.mtimeMs < RENEW_EVERY_MS) return false;
    rmSync(path, { force: true });
    writeFileSync(path, '', { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

export interface StartRenewalArgs {
  paths: Pick<CursorPaths, 'renewStarted'>;
  /** The session-start bundle, run again as the renewal. */
  script: string;
  env: NodeJS.ProcessEnv;
  now: number;
}

/** Starts the detached renewal unless one was started in the last minute; never throws, never waits for it. */
export function startRenewal(args: StartRenewalArgs): 'started' | 'recent' | 'failed' {
  if (!claimMarker(args.paths.renewStarted, args.now)) return 'recent';
  try {
    // Loaded here: the pre-MCP hook's slow path reaches this module on every call, and starts a renewal rarely.
    const { spawn } = builtin<typeof import('node:child_process')>('node:child_process');
    const child = spawn(process.execPath, [args.script, RENEW_FLAG], { detached: true, stdio: 'ignore', env: args.env, windowsHide: true });
    child.on('error', () => {});
    child.unref();
    return child.pid ? 'started' : 'failed';
  } catch {
    return 'failed';
  }
}
