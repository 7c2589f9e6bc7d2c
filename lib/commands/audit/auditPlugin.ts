/**
 * Runs every audit rule on a plugin folder. The only I/O beyond reading files: when the folder has its build
 * tooling (build/build.mjs and an installed esbuild), the bundles are rebuilt into a temp dir and compared.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteShort } from '../../platform/errors.js';
import type { Check } from '../../platform/report.js';
import {
  bundlesFreshRule, bundlesSelfContainedRule, commandsFrontmatterRule, connectEndpointRule, hooksAnchoredRule,
  hooksTargetsRule, hooksTimeoutsRule, logoRule, secondToolRule, secretsRule, type Freshness,
} from './fileRules.js';
import {
  inlineMcpServersRule, manifestKeysRule, manifestNameRule, mcpHeadersRule, mcpPlaceholderRule, mcpSchemaKeyRule,
  mcpServersPointerRule, mcpUrlRule, placeholderAuthRule, toolsMapRule, versionsRule,
} from './manifestRules.js';
import { listFiles, readPluginFiles, type PluginFiles } from './readPlugin.js';

export const AUDIT_RULES: ReadonlyArray<(p: PluginFiles) => Check> = [
  manifestKeysRule, manifestNameRule, versionsRule, mcpServersPointerRule,
  mcpSchemaKeyRule, mcpHeadersRule, mcpPlaceholderRule, mcpUrlRule,
  hooksAnchoredRule, hooksTimeoutsRule, hooksTargetsRule,
  bundlesSelfContainedRule, commandsFrontmatterRule, logoRule, secretsRule,
  inlineMcpServersRule, toolsMapRule, placeholderAuthRule, secondToolRule, connectEndpointRule,
];

export function hasBuildTooling(dir: string): boolean {
  return ['build/build.mjs', 'build/bundles.mjs', 'node_modules/esbuild/package.json'].every((f) => existsSync(join(dir, f)));
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

export interface AuditOptions {
  /** Skip the rebuild even when the tooling is there (the banner check runs instead). */
  noRebuild?: boolean;
}

export function auditPlugin(dir: string, options: AuditOptions = {}): Check[] {
  const files = readPluginFiles(dir);
  const freshness: Freshness = !options.noRebuild && hasBuildTooling(dir) ? rebuildAndCompare(dir) : { mode: 'banner' };
  const checks = AUDIT_RULES.map((rule) => rule(files));
  checks.splice(12, 0, bundlesFreshRule(files, freshness));
  return checks;
}
