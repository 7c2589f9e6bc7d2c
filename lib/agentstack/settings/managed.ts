/**
 * Managed settings: a machine-wide file an administrator writes and no user loosens. Its path is fixed per platform
 * (no environment variable or setting moves it: one would let anyone point the plugin at a file of their own). It
 * holds the same keys, checked by the same rules, as the person's settings file.
 *
 * Trust: on POSIX the file and its folder must belong to root and be writable by nobody else. A file others can
 * write keeps only its rules (`policy`, `ask-actions`, `deny-actions`: they only add strictness); its other keys are
 * ignored, since a stranger could otherwise point the sign-in at their server. A file that cannot be read whole
 * (broken JSON, unreadable, too large, not a regular file, a link to nothing) makes every AgentStack call ask, naming
 * the file. A value that fails its key's rule still keeps the key from the person: it is read as the organization
 * evidently meant it (`"false"` for false), else as the strictest value (strictReading).
 */
import { lstatSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { managedSettingsPath } from './managedPath.js';
import { systemToolRunner, type RunTool } from '../../platform/windows/systemInfo.js';
import { cursorPaths } from '../server/paths.js';
import { windowsFacts } from './windowsFacts.js';

export { managedSettingsPath };
import { readSettingsFile, type SettingsRead } from './file.js';
import type { StoredKey } from './keys.js';

/** The keys a managed file may set even when it cannot be trusted: they only ever add strictness. */
export const RULE_KEYS: readonly StoredKey[] = ['policy', 'ask-actions', 'deny-actions'];

export interface ManagedRead extends SettingsRead {
  /** Only root (or Administrators/SYSTEM) can write it; null when there is no file. */
  trusted: boolean | null;
  /** Why it is not trusted, when it is not. */
  distrust: string | null;
  /** The keys in effect from it (all of `values` when trusted; only its rules when not). */
  keys: StoredKey[];
  /** The keys whose value failed its rule and is read the strict way (in `values`), each with what that means. */
  strict: Partial<Record<StoredKey, string>>;
}

/**
 * What a managed value that fails its key's rule is taken to mean: what the organization evidently meant (a JSON
 * `false` or `"false"` where a word is expected), else the strictest value, which a person cannot loosen. A server,
 * proxy or client id that is not valid is kept as it is: every sign-in and request then stops with its error, rather
 * than go where the person's own settings say. Rules (`policy`, `ask-actions`, `deny-actions`) are never read here:
 * one that is not valid makes every call ask. Pure.
 */
export function strictReading(key: StoredKey, raw: unknown): { value: string; means: string } | null {
  const word = typeof raw === 'boolean' ? String(raw) : typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  const yes = ['true', 'on', 'yes', '1'].includes(word);
  const no = ['false', 'off', 'no', '0'].includes(word);
  switch (key) {
    case 'auto-login': return yes ? { value: 'true', means: 'read as true' } : { value: 'false', means: `read as ${no ? 'false' : 'false, the strictest: no sign-in starts on its own'}` };
    case 'journal': return no ? { value: 'off', means: 'read as off' } : { value: 'on', means: `read as on${yes ? '' : ', the strictest: every call is recorded'}` };
    case 'debug': return { value: 'off', means: 'read as off, the strictest: no request is logged' };
    case 'scope-preset': return { value: 'readonly', means: 'read as readonly, the strictest: a sign-in asks for read capabilities only' };
    case 'no-proxy': return { value: '', means: 'read as empty, the strictest: no host bypasses the proxy' };
    case 'credential-store': return { value: 'keychain', means: 'read as keychain, the strictest: the refresh token is kept only in the system keychain' };
    case 'base-url': case 'https-proxy': case 'oauth-client-id':
      return { value: typeof raw === 'string' ? raw : JSON.stringify(raw) ?? '', means: 'kept as it is: every sign-in and request stops with its error until it is fixed' };
    default: return null;
  }
}

export interface ManagedOptions {
  /** The file to read (tests; the platform's path otherwise). */
  path?: string;
  platform?: NodeJS.Platform;
  /** Runs Windows' system tools (tests: recording stand-ins; then nothing is kept unless `windowsRecord` is given). */
  runTool?: RunTool;
  /** Where what the tools said is kept (windowsFacts.ts); the Cursor dir's record by default. */
  windowsRecord?: string | null;
  /** Who may write `path` (tests): null when only an administrator can. */
  trustProblem?: (path: string) => string | null;
}

/** Why a file (and its folder) could be written by someone other than root, or null when it cannot. POSIX only. */
export function posixTrustProblem(path: string): string | null {
  for (const [what, target, stat] of [['the file', path, lstatSync(path)], ['its folder', dirname(path), statSync(dirname(path))]] as const) {
    if (stat.isSymbolicLink()) return `${what} ${target} is a symbolic link`;
    if (stat.uid !== 0) return `${what} ${target} belongs to uid ${stat.uid}, not root`;
    if ((stat.mode & 0o022) !== 0) return `${what} ${target} can be written by ${stat.mode & 0o002 ? 'every user' : 'its group'} (mode 0${(stat.mode & 0o777).toString(8)})`;
  }
  return null;
}

/**
 * Reads the managed file once: absent (no keys), broken (every call asks), or its values with its trust. On Windows
 * the file is looked for in the registry's ProgramData folder, and trusted when it and its folder belong to an
 * administrator and nobody else may change them (their access lists by SID, one PowerShell run when the file exists;
 * both kept for the next runs by windowsFacts.ts, never asked on the hooks' fast path).
 */
export function readManagedSettings(options: ManagedOptions = {}): ManagedRead {
  const platform = options.platform ?? process.platform;
  const windows = platform === 'win32' ? windowsFacts(options.runTool ?? systemToolRunner({ platform }), options.windowsRecord !== undefined ? options.windowsRecord : options.runTool ? null : windowsRecordPath()) : null;
  const path = options.path ?? managedSettingsPath(platform, windows?.programData());
  const read = readSettingsFile(path);
  if (!read.exists) {
    // A link to nothing is a file someone put there that cannot be used, not an absent one.
    if (!isDanglingLink(path)) return { ...read, trusted: null, distrust: null, keys: [], strict: {} };
    return { ...read, exists: true, broken: true, problems: [`The settings file ${path} is a symbolic link to a file that does not exist; it was ignored.`], trusted: null, distrust: null, keys: [], strict: {} };
  }
  let distrust: string | null = null;
  if (!read.broken) {
    try {
      distrust = options.trustProblem ? options.trustProblem(path) : windows ? windows.trustProblem(path) : posixTrustProblem(path);
    } catch (error) {
      distrust = `its owner and mode cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  const values = { ...read.values };
  const strict: ManagedRead['strict'] = {};
  for (const key of read.rejected) {
    const reading = RULE_KEYS.includes(key) ? null : strictReading(key, read.refused?.[key]);
    if (!reading) continue;
    values[key] = reading.value;
    strict[key] = reading.means;
  }
  const rejected = read.rejected.filter((k) => strict[k] === undefined);
  const present = Object.keys(values) as StoredKey[];
  const keys = distrust === null ? present : present.filter((k) => RULE_KEYS.includes(k));
  return { ...read, values, rejected, trusted: distrust === null, distrust, keys, strict };
}

function windowsRecordPath(): string | null {
  try {
    return cursorPaths(process.env).windowsManaged;
  } catch {
    return null; // no usable Cursor dir: the tools run every time
  }
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** No managed file (what a machine without one reads). */
export function noManagedSettings(path = managedSettingsPath()): ManagedRead {
  return { path, exists: false, values: {}, problems: [], rejected: [], broken: false, trusted: null, distrust: null, keys: [], strict: {} };
}

/** What `config set` / `unset` says when the organization set the key: nothing is changed. */
export function managedRefusal(key: string, path: string): string {
  return `${key} is set by your organization in ${path}; ask your administrator to change it`;
}
