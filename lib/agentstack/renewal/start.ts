/**
 * Starting the detached token renewal (due.ts decides when): a marker file claimed at most once a minute, then
 * the session-start bundle with RENEW_FLAG, detached, its output ignored. Small and free of the credential code, so
 * the pre-MCP hook's fast path can start one without loading more.
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { builtin } from '../../platform/builtin.js';
import { RENEW_FLAG } from '../signIn/pollerFlag.js';
import type { CursorPaths } from '../server/paths.js';

/** A renewal started less than this long ago is not started again. */
export const RENEW_EVERY_MS = 60_000;

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
