/**
 * This plugin's installed copies under ~/.cursor/plugins (local, cache, marketplaces), compared file by file with
 * the copy that runs (the usual symptom of a stale copy: the logo does not show). Repairs write only inside
 * ~/.cursor/plugins: stale files are replaced atomically with the source's mode; cached copies can be purged.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginError } from '../../platform/errors.js';
import { cursorPluginDirs } from '../server/paths.js';
import { writeFileAtomic } from '../../platform/fs/secureFile.js';

export const MANIFEST_PATH = '.cursor-plugin/plugin.json';
const SHIPPED_DIRS = ['.cursor-plugin', 'hooks', 'scripts', 'commands', 'assets', 'rules', 'skills', 'agents'];
const SHIPPED_ROOT_FILES = ['mcp.json', 'package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'];
const MAX_DEPTH = 4;

export type CopyKind = 'local' | 'cache' | 'marketplace';
export type FilePrint = { hash: string; exec: boolean; mode: number };
export type Fingerprint = Map<string, FilePrint>;
export type Difference = { path: string; reason: 'missing' | 'changed' | 'mode' };
export interface CopyReport {
  kind: CopyKind;
  dir: string;
  version: string | null;
  stale: boolean;
  differences: Difference[];
  mtimeMs: number;
}

/** The plugin root of a bundled script: the nearest folder up from it holding .cursor-plugin/plugin.json. */
export function pluginRootFrom(importMetaUrl: string): string {
  const start = dirname(fileURLToPath(importMetaUrl));
  for (let dir = start, i = 0; i < 4; i += 1, dir = dirname(dir)) {
    if (existsSync(join(dir, MANIFEST_PATH))) return dir;
  }
  return dirname(start);
}

export function readManifest(dir: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(join(dir, MANIFEST_PATH), 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function walk(dir: string, prefix: string, out: string[]): void {
  let entries;
  try { entries = readdirSync(join(dir, prefix), { withFileTypes: true }); } catch { return; }
  for (const e of entries) {
    const rel = `${prefix}/${e.name}`;
    if (e.isDirectory()) walk(dir, rel, out);
    else if (e.isFile()) out.push(rel);
  }
}

/** The files a plugin ships (what Cursor loads and runs), relative with `/` separators. */
export function shippedFiles(root: string): string[] {
  const out: string[] = [];
  for (const d of SHIPPED_DIRS) walk(root, d, out);
  for (const f of SHIPPED_ROOT_FILES) if (existsSync(join(root, f))) out.push(f);
  return out.sort();
}

function printOf(path: string): FilePrint | null {
  try {
    const mode = statSync(path).mode & 0o777;
    return { hash: createHash('sha256').update(readFileSync(path)).digest('hex'), exec: (mode & 0o111) !== 0, mode };
  } catch {
    return null;
  }
}

export function fingerprint(root: string, paths: string[] = shippedFiles(root)): Fingerprint {
  const map: Fingerprint = new Map();
  for (const rel of paths) {
    const print = printOf(join(root, rel));
    if (print) map.set(rel, print);
  }
  return map;
}

/** Pure: what differs in a copy, judged against the source's files only (extra files in the copy do no harm). */
export function diffFingerprints(source: Fingerprint, copy: Fingerprint): Difference[] {
  const out: Difference[] = [];
  for (const [path, want] of source) {
    const got = copy.get(path);
    if (!got) out.push({ path, reason: 'missing' });
    else if (got.hash !== want.hash) out.push({ path, reason: 'changed' });
    else if (got.exec !== want.exec) out.push({ path, reason: 'mode' });
  }
  return out;
}

const realOrSelf = (p: string) => { try { return realpathSync.native(p); } catch { return p; } };

/**
 * Whether two folders are the same install. Real paths are compared (a local symlink to the source is the source),
 * ignoring case on Windows and macOS, whose file systems usually do: there a different drive-letter case or an 8.3
 * short name must not make the running copy look like another one, which --purge would delete.
 */
export function sameFolder(a: string, b: string, options: { platform?: NodeJS.Platform; realpath?: (p: string) => string } = {}): boolean {
  const real = options.realpath ?? realOrSelf;
  const platform = options.platform ?? process.platform;
  const ra = real(a);
  const rb = real(b);
  return platform === 'win32' || platform === 'darwin' ? ra.toLowerCase() === rb.toLowerCase() : ra === rb;
}
const isInside = (child: string, parent: string) => {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel);
};

function isDirectory(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}

/** Folders under `root` (at most MAX_DEPTH deep) holding a manifest named `name`. */
function findNamed(root: string, name: string, depth = 0, out: string[] = []): string[] {
  if (depth > MAX_DEPTH || !isDirectory(root)) return out;
  if (readManifest(root)?.name === name) { out.push(root); return out; }
  let entries: string[] = [];
  try { entries = readdirSync(root); } catch { return out; }
  for (const e of entries) if (e !== 'node_modules' && e !== '.git') findNamed(join(root, e), name, depth + 1, out);
  return out;
}

/** Every folder under ~/.cursor/plugins holding plugin `name`. */
export function findInstalls(name: string, env: NodeJS.ProcessEnv = process.env): Array<{ kind: CopyKind; dir: string }> {
  const roots = cursorPluginDirs(env);
  const kinds: Array<[CopyKind, string]> = [['local', roots.local], ['cache', roots.cache], ['marketplace', roots.marketplaces]];
  return kinds.flatMap(([kind, root]) => findNamed(root, name).map((dir) => ({ kind, dir })));
}

/** Every install of plugin `name` except `source` itself (a local symlink to it included). */
export function findCopies(name: string, source: string, env: NodeJS.ProcessEnv = process.env): Array<{ kind: CopyKind; dir: string }> {
  return findInstalls(name, env).filter((c) => !sameFolder(c.dir, source));
}

export function inspectCopies(source: string, env: NodeJS.ProcessEnv = process.env): CopyReport[] {
  const manifest = readManifest(source);
  const name = typeof manifest?.name === 'string' ? manifest.name : 'agentstack';
  const files = shippedFiles(source);
  const want = fingerprint(source, files);
  return findCopies(name, source, env).map(({ kind, dir }) => {
    const version = readManifest(dir)?.version;
    const differences = diffFingerprints(want, fingerprint(dir, files));
    return { kind, dir, version: typeof version === 'string' ? version : null, stale: differences.length > 0, differences, mtimeMs: statSync(dir).mtimeMs };
  });
}

/** Throws unless `target` lies inside ~/.cursor/plugins (links resolved): repairs never write anywhere else. */
export function assertInsidePlugins(target: string, env: NodeJS.ProcessEnv = process.env): void {
  const plugins = realOrSelf(dirname(cursorPluginDirs(env).local));
  if (!isInside(realOrSelf(target), plugins)) {
    throw new PluginError('invalid_config', `Refusing to change ${target}: it is outside ${plugins}`);
  }
}

/**
 * Throws unless every folder that exists between `dir` and the file `rel` inside it is a real folder. A symlinked
 * folder would lead mkdir and the write out of the copy, and a containment check on the final path cannot see it
 * while the folders below the link do not exist yet; so each existing component is looked at before anything is
 * created. (The file itself may be a link: an atomic rename replaces the link, never its target.)
 */
export function assertNoLinkedFolder(dir: string, rel: string): void {
  let at = dir;
  for (const part of rel.split('/').slice(0, -1)) {
    at = join(at, part);
    let stat;
    try { stat = lstatSync(at); } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) throw new PluginError('invalid_config', `Refusing to write through ${at}: it is a symlink; nothing in this copy was changed. Remove the copy (or run --purge) and reinstall.`);
    if (!stat.isDirectory()) throw new PluginError('invalid_config', `Refusing to write below ${at}: it is not a folder; nothing in this copy was changed.`);
  }
}

/** Replaces each differing file of a copy with the source's bytes and mode. Returns the paths written. */
export function fixCopy(source: string, copy: CopyReport, env: NodeJS.ProcessEnv = process.env): string[] {
  assertInsidePlugins(copy.dir, env);
  // Every target is checked before the first write, so a refused copy is left as it was.
  for (const { path } of copy.differences) {
    assertNoLinkedFolder(copy.dir, path);
    assertInsidePlugins(dirname(join(copy.dir, path)), env);
  }
  const written: string[] = [];
  for (const { path } of copy.differences) {
    const from = join(source, path);
    const to = join(copy.dir, path);
    const mode = statSync(from).mode & 0o777;
    writeFileAtomic(to, readFileSync(from), { mode });
    chmodSync(to, mode); // the umask may have cleared bits at creation
    written.push(path);
  }
  return written;
}

/** Removes a cached copy so Cursor downloads it again. Only `cache` copies are ever purged. */
export function purgeCopy(copy: CopyReport, env: NodeJS.ProcessEnv = process.env): boolean {
  if (copy.kind !== 'cache') return false;
  assertInsidePlugins(copy.dir, env);
  if (!isInside(realOrSelf(copy.dir), realOrSelf(cursorPluginDirs(env).cache))) return false;
  // maxRetries: on Windows a file another process holds open fails the delete with EBUSY/EPERM for a moment.
  rmSync(copy.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  return true;
}

/** The copy Cursor most likely loads: the newest cached (marketplace) install wins over the local folder. */
export function activeCopy(copies: CopyReport[]): CopyReport | null {
  const cached = copies.filter((c) => c.kind === 'cache').sort((a, b) => b.mtimeMs - a.mtimeMs);
  return cached[0] ?? copies.find((c) => c.kind === 'local') ?? null;
}
