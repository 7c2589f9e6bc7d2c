/**
 * The organization's copy of the gate: the pre-MCP and after-MCP hook bundles with their chunks, copied from the
 * plugin's `hooks/scripts` into the administrators' folder (mode 0644, folders 0755, owned by root), and its marker
 * (`gate.json`: the version, the node, each file's SHA-256, and what install created in the hooks file).
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../platform/fs/secureFile.js';

/** The copy's files: the two hooks' first stages and their sibling chunks. */
export const GATE_FILE = /^(pre-mcp-cap-check|after-mcp-journal)(\.[a-z]+)?\.cjs$/;

export interface Marker {
  version: string;
  node: string;
  files: Record<string, string>;
  hooks_file: string;
  /** Install created the hooks file / these events' lists (remove takes them out again once empty). */
  created_file: boolean;
  created_events: string[];
}

export const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The files to copy from the plugin's hooks/scripts, each with its bytes. */
export function gateFiles(source: string): Map<string, Buffer> {
  const names = readdirSync(source).filter((n) => GATE_FILE.test(n)).sort();
  for (const needed of ['pre-mcp-cap-check.cjs', 'after-mcp-journal.cjs']) {
    if (!names.includes(needed)) throw new Error(`${join(source, needed)} is missing: this plugin copy is incomplete`);
  }
  return new Map(names.map((n) => [n, readFileSync(join(source, n))]));
}

/** Creates each missing level of `dir` (0755, owned by the caller: root). */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try { lstatSync(d); break; } catch { missing.unshift(d); }
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    mkdirSync(d, { mode: 0o755 });
    chmodSync(d, 0o755);
  }
}

/** Writes each file that differs (atomically, 0644) and removes the copy's files no longer in the set; what changed. */
export function syncFiles(dir: string, files: Map<string, Buffer>): string[] {
  makeFolders(dir);
  const changed: string[] = [];
  for (const [name, data] of files) {
    const path = join(dir, name);
    if (sameFile(path, data)) continue;
    writeFileAtomic(path, data, { mode: 0o644 });
    chmodSync(path, 0o644);
    changed.push(name);
  }
  for (const name of readdirSync(dir)) {
    if (GATE_FILE.test(name) && !files.has(name)) {
      rmSync(join(dir, name), { force: true });
      changed.push(name);
    }
  }
  return changed;
}

function sameFile(path: string, data: Buffer): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && (st.mode & 0o777) === 0o644 && readFileSync(path).equals(data);
  } catch {
    return false;
  }
}

export function readMarker(path: string): Marker | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Marker;
    return typeof value?.version === 'string' && typeof value.files === 'object' ? value : null;
  } catch {
    return null;
  }
}

/** Removes the copy's files and then each of its folders that is left empty (never anything else). */
export function removeCopy(root: string, scripts: string): string[] {
  const removed: string[] = [];
  try {
    for (const name of readdirSync(scripts)) {
      if (!GATE_FILE.test(name)) continue;
      rmSync(join(scripts, name), { force: true });
      removed.push(name);
    }
  } catch { /* no folder */ }
  for (let d = scripts; d.startsWith(root); d = dirname(d)) {
    try { rmdirSync(d); } catch { break; /* not empty, or gone */ }
    if (d === root) break;
  }
  return removed;
}
