/**
 * Bundle freshness: the one place the audit runs code. It rebuilds with a folder's own build/build.mjs only when
 * that folder is this repository's own tree (the checkout the audit script belongs to) or the person asked for it
 * with --rebuild. Any other folder is judged by reading alone: auditing a plugin must never execute it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteShort } from '../../platform/errors.js';
import { listFiles } from './readPlugin.js';
import type { Freshness } from './rule.js';

export interface FreshnessOptions {
  /** The repository the audit script belongs to: its own tree may be rebuilt. */
  ownTree?: string;
  /** Rebuild whatever folder is audited (the person asked for it by name). */
  rebuild?: boolean;
  /** Never rebuild, even this repository's own tree. */
  noRebuild?: boolean;
  /** A one-line note before the rebuild, which takes seconds (a progress note for a person at a terminal). */
  onProgress?: (line: string) => void;
}

export function hasBuildTooling(dir: string): boolean {
  return ['build/build.mjs', 'build/bundles.mjs', 'node_modules/esbuild/package.json'].every((f) => existsSync(join(dir, f)));
}

function samePath(a: string, b: string): boolean {
  try { return realpathSync(a) === realpathSync(b); } catch { return false; }
}

/** Rebuilds the bundles into a temp dir with the folder's own build script and lists the committed ones that differ. */
export function rebuildAndCompare(dir: string): Freshness {
  const out = mkdtempSync(join(tmpdir(), 'agentstack-audit-build-'));
  try {
    execFileSync(process.execPath, [join(dir, 'build/build.mjs'), '--outdir', out], { cwd: dir, stdio: 'pipe', timeout: 180_000 });
    const stale: string[] = [];
    for (const rel of listFiles(out)) {
      const committed = existsSync(join(dir, rel)) ? readFileSync(join(dir, rel)) : null;
      if (!committed || !committed.equals(readFileSync(join(out, rel)))) stale.push(committed ? rel : `${rel} (missing)`);
    }
    return { mode: 'rebuilt', stale };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() || (error as Error).message;
    return { mode: 'error', message: quoteShort(stderr, 200) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** How to judge freshness for `dir`: the decision, then (only when allowed) the rebuild. */
export function freshnessOf(dir: string, options: FreshnessOptions): Freshness {
  if (options.noRebuild) return { mode: 'banner', why: 'rebuild skipped (--no-rebuild)' };
  const own = !!options.ownTree && samePath(dir, options.ownTree);
  if (!own && !options.rebuild) return { mode: 'banner', why: 'not this repository, so its code is not run' };
  if (!hasBuildTooling(dir)) {
    return options.rebuild ? { mode: 'error', message: 'no build tooling here (build/build.mjs, node_modules/esbuild)' } : { mode: 'banner', why: 'no build tooling here' };
  }
  options.onProgress?.(`Rebuilding the bundles of ${dir} to compare them with the committed ones…`);
  return rebuildAndCompare(dir);
}
