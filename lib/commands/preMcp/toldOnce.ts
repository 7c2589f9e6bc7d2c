/**
 * `agentstack-credential-told.json`: when the pre-MCP hook last told the person about each credential state, so it
 * speaks at most once every ten minutes per state. `{"<state>": "<ISO time>"}`, no secret (a running sign-in's
 * code is kept only as a one-way tag), 0600, replaced atomically; entries older than the interval are dropped on
 * every write, so the file stays a few lines. Two calls at the same instant may both speak: harmless.
 */
import { readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { isObject } from '../../platform/text/isObject.js';
import { STATE_FILE_MAX_BYTES } from '../../agentstack/server/fileLimits.js';

export const TELL_EVERY_MS = 10 * 60_000;
const MAX_ENTRIES = 16;

/** A short tag for a key (FNV-1a): the file names the state without holding a running sign-in's code. */
function tag(key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  const colon = key.indexOf(':');
  return colon < 0 ? key : `${key.slice(0, colon)}:${hash.toString(16)}`;
}

/** The entries still inside the interval (a missing, unreadable or hand-edited file is no entry). Pure on `text`. */
export function recentTold(text: string | null, now: number): Record<string, string> {
  let value: unknown;
  try { value = JSON.parse(text ?? '{}'); } catch { return {}; }
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [key, at] of Object.entries(value).slice(0, MAX_ENTRIES)) {
    const ms = typeof at === 'string' ? Date.parse(at) : NaN;
    // A time in the future (a clock set back, a hand edit) would silence the hook for good: it is dropped.
    if (Number.isFinite(ms) && ms <= now && now - ms < TELL_EVERY_MS) out[key] = at as string;
  }
  return out;
}

/** True (and recorded) when `key` was not told within the interval; false when it was. A file that cannot be
 * written never silences the hook: it then speaks. */
export function tellOnce(path: string, key: string, now: number): boolean {
  let text: string | null = null;
  try { text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.credentialTold }); } catch { /* unreadable: as if empty */ }
  const told = recentTold(text, now);
  const id = tag(key);
  if (told[id] !== undefined) return false;
  told[id] = new Date(now).toISOString();
  try {
    writeFileAtomic(path, `${JSON.stringify(told)}\n`, { durable: false });
  } catch { /* speak anyway */ }
  return true;
}
