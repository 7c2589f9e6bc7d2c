/**
 * `agentstack-signed-out`: the record that the person signed out on purpose. While it exists and no credential is
 * in place, session-start says "signed out" and never starts a sign-in by itself; a successful sign-in removes it.
 */
import { existsSync } from 'node:fs';
import { SECRET_FILE_MODE, readTextIfExists, removeIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';

export function markSignedOut(path: string, args: { serverUrl: string; now?: Date }): void {
  const record = { signed_out_at: (args.now ?? new Date()).toISOString(), server_url: args.serverUrl };
  writeFileAtomic(path, `${JSON.stringify(record)}\n`, { mode: SECRET_FILE_MODE });
}

/** When the record says the person signed out (epoch ms); null when there is no readable record. */
export function signedOutAt(path: string): number | null {
  try {
    const text = readTextIfExists(path, { maxBytes: 4096 });
    const at = text === null ? NaN : Date.parse(String((JSON.parse(text) as { signed_out_at?: unknown }).signed_out_at));
    return Number.isFinite(at) ? at : null;
  } catch {
    return null;
  }
}

/** Whether the person signed out (the record exists); cheap enough for every session start. */
export function isSignedOut(path: string): boolean {
  return existsSync(path);
}

export function clearSignedOut(path: string): void {
  try { removeIfExists(path); } catch { /* a folder in its place: session-start still works, only says "signed out" */ }
}
