/**
 * The organization's capability map: the server's action list (`GET /mcp/actions`) as `action → required_cap`, which
 * an administrator installs beside the organization's copy of the gate (`managed.mjs install-hooks --catalog`), in a
 * folder only administrators can write. Where it is in place, the organization's capability rules (`deny-actions` /
 * `ask-actions` with a colon, a managed `readonly` or `confirm-writes`) judge an action by it alone: the person's
 * capability snapshot (a file they can edit) is not consulted for them, and an action the map does not list gets the
 * strictest reading (it counts as matching the rule). Read only while such rules are in effect: one small file.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import { orgGateDir } from '../plugin/orgGate.js';
import { isCapabilityRule } from './rules.js';

/** The map as the hooks use it. `broken`: a file an administrator wrote that cannot be read: no action is listed. */
export interface CapabilityMap {
  actions: ReadonlyMap<string, string | null>;
  writtenAt: string | null;
  broken?: string;
}

/** The file's shape (small: only what the rules read). */
export interface CapabilityMapFile {
  v: 1;
  written_at: string;
  /** Entries of the server's list left out as malformed when it was installed. */
  skipped: number;
  actions: Record<string, string | null>;
}

export const MAP_FILE_MAX = 2 * 1024 * 1024;
export const NOT_IN_MAP = 'the organization\'s capability map does not list it';

export function capabilityMapPath(platform: NodeJS.Platform = process.platform, programData?: string): string {
  return (platform === 'win32' ? win32 : posix).join(orgGateDir(platform, programData), 'capabilities.json');
}

/** Whether the organization's part of the policy holds a rule judged by capability (only then is the map read). Pure. */
/** The organization's part of the policy, as far as the map is concerned. */
export interface ManagedRules { preset: boolean; deny: readonly string[]; ask: readonly string[]; capabilities?: CapabilityMap }

export function hasManagedCapabilityRules(managed: ManagedRules | undefined): boolean {
  return !!managed && (managed.preset || managed.deny.some(isCapabilityRule) || managed.ask.some(isCapabilityRule));
}

/** The map of a file's text; a text that is not one gives a map listing nothing (every action the strictest reading). Pure. */
export function parseCapabilityMap(text: string): CapabilityMap {
  let value: unknown;
  try { value = JSON.parse(text); } catch { return { actions: new Map(), writtenAt: null, broken: 'it is not JSON' }; }
  const file = value as Partial<CapabilityMapFile> | null;
  if (!file || typeof file !== 'object' || file.v !== 1 || !file.actions || typeof file.actions !== 'object' || Array.isArray(file.actions)) {
    return { actions: new Map(), writtenAt: null, broken: 'it is not a capability map of this plugin' };
  }
  const actions = new Map<string, string | null>();
  for (const [action, cap] of Object.entries(file.actions)) {
    if (cap === null || typeof cap === 'string') actions.set(action, cap);
  }
  return { actions, writtenAt: typeof file.written_at === 'string' ? file.written_at : null };
}

/** An action as the map says: its capability, or unknown (the strictest reading). Pure. */
export function mapReading(map: CapabilityMap, action: string): { known: true; cap: string | null } | { known: false; cap: null; unknown: string } {
  const cap = map.actions.get(action);
  return cap === undefined ? { known: false, cap: null, unknown: map.broken ? `the organization's capability map cannot be read (${map.broken})` : NOT_IN_MAP } : { known: true, cap };
}

/**
 * Reads the installed map: null when there is none, or (POSIX) when the file is not a regular file that only root
 * could have written (then it is no administrator's, and today's reading stays). One open, one fstat, one read.
 */
export function readCapabilityMap(path = capabilityMapPath(), platform: NodeJS.Platform = process.platform): CapabilityMap | null {
  let fd: number;
  try { fd = openSync(path, 'r'); } catch { return null; }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    if (platform !== 'win32' && (st.uid !== 0 || (st.mode & 0o022) !== 0)) return null;
    if (st.size > MAP_FILE_MAX) return { actions: new Map(), writtenAt: null, broken: `it is larger than ${MAP_FILE_MAX} bytes` };
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return parseCapabilityMap(buf.subarray(0, got).toString('utf8'));
  } catch {
    return { actions: new Map(), writtenAt: null, broken: 'it cannot be read' };
  } finally {
    closeSync(fd);
  }
}

/**
 * The policy with the organization's map attached, when the organization's rules include a capability rule and a map
 * is in place; the same policy (no file read) otherwise.
 */
export function withCapabilityMap<T extends { policy?: { managed?: ManagedRules } }>(effect: T, read: () => CapabilityMap | null = () => readCapabilityMap()): T {
  const policy = effect.policy;
  if (!policy || !hasManagedCapabilityRules(policy.managed)) return effect;
  const map = read();
  if (!map) return effect;
  return { ...effect, policy: { ...policy, managed: { ...policy.managed!, capabilities: map } } };
}
