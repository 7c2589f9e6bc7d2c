/**
 * The organization's capability map beside its copy of the gate (`install-hooks --catalog FILE`): the server's action
 * list (`GET /mcp/actions`, read entry by entry as the snapshot's is: a malformed entry is skipped and counted) kept
 * as `action → required_cap`, a root-owned 0644 file. A reinstall with the same list changes nothing; remove-hooks
 * removes it; status says whether it is in place, with how many actions and when it was written.
 */
import { chmodSync, lstatSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { dirname } from 'node:path';
import { managedSettingsPath } from '../../agentstack/settings/managedPath.js';
import { readCatalog, flattenCatalog } from '../../agentstack/snapshot/catalog.js';
import { parseCapabilityMap, type CapabilityMapFile } from '../../agentstack/policy/capabilityMap.js';
import { writeFileAtomic } from '../../platform/fs/secureFile.js';

/** The map of a catalog's text (pure): its tenant actions, sorted, and how many entries were skipped and why. */
export function mapOfCatalog(text: string, now = new Date()): { file: CapabilityMapFile; skippedReason: string | null } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the catalog is not JSON (give the body of GET <server>/mcp/actions)');
  }
  const read = readCatalog(value, 'The catalog');
  const flat = flattenCatalog(read);
  const actions: Record<string, string | null> = {};
  for (const a of [...flat.actions].sort((x, y) => (x.action < y.action ? -1 : x.action > y.action ? 1 : 0))) {
    // The first entry of an action listed twice decides, as in the snapshot's index.
    if (!Object.hasOwn(actions, a.action)) Object.defineProperty(actions, a.action, { value: a.required_cap, enumerable: true, writable: true, configurable: true });
  }
  // A list with no action would give every action the strictest reading: an empty or wrong body, not a server's list.
  if (Object.keys(actions).length === 0) throw new Error(`the catalog lists no action${read.skipped ? ` (${read.skipped} malformed entries skipped: ${read.skippedReason ?? 'malformed'})` : ''}; give the body of GET <server>/mcp/actions`);
  return { file: { v: 1, written_at: now.toISOString(), skipped: read.skipped, actions }, skippedReason: read.skippedReason };
}

const sameMap = (a: CapabilityMapFile, text: string | null) => {
  if (text === null) return false;
  try {
    const b = JSON.parse(text) as CapabilityMapFile;
    return b.v === 1 && b.skipped === a.skipped && JSON.stringify(b.actions) === JSON.stringify(a.actions);
  } catch {
    return false;
  }
};

function readIfFile(path: string): string | null {
  try {
    return lstatSync(path).isFile() ? readFileSync(path, 'utf8') : null;
  } catch {
    return null;
  }
}

/** Writes the map (0644, atomically) unless the file already holds the same actions; the lines to print. */
export function writeCapabilityMap(path: string, map: { file: CapabilityMapFile; skippedReason: string | null }, platform: NodeJS.Platform = process.platform): string[] {
  const count = Object.keys(map.file.actions).length;
  const skipped = map.file.skipped ? ` (${map.file.skipped} malformed entr${map.file.skipped === 1 ? 'y' : 'ies'} of the catalog skipped: ${map.skippedReason ?? 'malformed'})` : '';
  const current = readIfFile(path);
  if (sameMap(map.file, current) && (lstatSync(path).mode & 0o777) === 0o644) return [`the capability map ${path} already holds these ${count} actions${skipped}`];
  writeFileAtomic(path, `${JSON.stringify(map.file)}\n`, { mode: 0o644 });
  chmodSync(path, 0o644);
  touchManagedFolder(platform);
  return [`wrote the capability map ${path}: ${count} actions${skipped}; the organization's capability rules judge actions by it`];
}

export function removeCapabilityMap(path: string, platform: NodeJS.Platform = process.platform): boolean {
  const had = readIfFile(path) !== null;
  rmSync(path, { force: true });
  if (had) touchManagedFolder(platform);
  return had;
}

/**
 * The plugin's compiled fast-path gates stamp the managed settings' folder, not the map: its times are renewed (only
 * its times; nothing in it changes) so that every gate compiled before the map changed is stale at the next call.
 */
function touchManagedFolder(platform: NodeJS.Platform): void {
  const now = new Date();
  try { utimesSync(dirname(managedSettingsPath(platform)), now, now); } catch { /* no managed settings: no managed rules to compile */ }
}

export interface MapStatus {
  path: string;
  in_place: boolean;
  actions: number | null;
  written_at: string | null;
  problem: string | null;
}

/** Whether the map is in place (POSIX: a regular file owned by root that no group or other user can write). */
export function capabilityMapStatus(path: string, platform: NodeJS.Platform = process.platform): MapStatus {
  const none: MapStatus = { path, in_place: false, actions: null, written_at: null, problem: null };
  let st;
  try { st = lstatSync(path); } catch { return none; }
  if (!st.isFile()) return { ...none, problem: `${path} is not a regular file (the hooks ignore it)` };
  if (platform !== 'win32' && (st.uid !== 0 || (st.mode & 0o022) !== 0)) return { ...none, problem: `${path} could have been written by someone other than root (the hooks ignore it)` };
  const map = parseCapabilityMap(readFileSync(path, 'utf8'));
  if (map.broken) return { ...none, problem: `${path} cannot be read (${map.broken}): every action gets the strictest reading; run install-hooks --catalog again` };
  return { path, in_place: true, actions: map.actions.size, written_at: map.writtenAt, problem: null };
}
