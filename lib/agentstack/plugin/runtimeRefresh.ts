/** refresh-cursor-runtime's decisions: inspect the copies, optionally fix or purge them, and report as Checks. */
import { pluginCommand } from './root.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { tilde } from '../../platform/text/tilde.js';
import { fixCopy, inspectCopies, purgeCopy, readManifest, type CopyReport } from './runtimeCopies.js';

export interface RefreshResult {
  copies: CopyReport[];
  changes: string[];
  errors: Array<{ dir: string; message: string }>;
}

export function describeDifferences(copy: CopyReport, max = 3): string {
  const shown = copy.differences.slice(0, max).map((d) => `${d.path} ${d.reason}`);
  const more = copy.differences.length > max ? `, +${copy.differences.length - max} more` : '';
  return `${copy.differences.length} file(s) differ (${shown.join(', ')}${more})`;
}

export function refreshCopies(source: string, options: { fix?: boolean; purge?: boolean; env?: NodeJS.ProcessEnv } = {}): RefreshResult {
  const env = options.env ?? process.env;
  const changes: string[] = [];
  const errors: RefreshResult['errors'] = [];
  for (const copy of inspectCopies(source, env)) {
    try {
      if (options.purge && copy.kind === 'cache' && purgeCopy(copy, env)) changes.push(`removed cached copy ${tilde(copy.dir)}`);
      else if (options.fix && copy.stale) {
        const written = fixCopy(source, copy, env);
        changes.push(`updated ${written.length} file(s) in ${tilde(copy.dir)}`);
      }
    } catch (error) {
      errors.push({ dir: copy.dir, message: (error as Error).message });
    }
  }
  return { copies: inspectCopies(source, env), changes, errors };
}

/** Pure: one Check per copy, plus one per failed repair. */
export function copyChecks(source: string, result: RefreshResult): Check[] {
  const version = readManifest(source)?.version;
  const checks: Check[] = result.copies.map((c) => {
    const where = `${c.kind} ${tilde(c.dir)}`;
    if (!c.stale) return pass(`copy.${c.kind}`, `${where} is identical (${c.version ?? '?'})`);
    const versions = c.version === version ? `version ${c.version}` : `version ${c.version ?? '?'} vs ${String(version)}`;
    return warn(`copy.${c.kind}`, `${where}: ${versions}, ${describeDifferences(c)}`,
      c.kind === 'cache' ? 'Run refresh-cursor-runtime --fix (or --purge), then reload Cursor' : 'Run refresh-cursor-runtime --fix, then reload Cursor',
      { dir: c.dir, version: c.version, differences: c.differences });
  });
  for (const e of result.errors) checks.push(fail('copy.repair', `could not repair ${tilde(e.dir)}: ${e.message}`, 'Fix the copy by hand or reinstall the plugin'));
  if (!checks.length) checks.push(pass('copies', 'no other copy of this plugin under ~/.cursor/plugins'));
  return checks;
}

/** Pure: the diagnose gate, one line for all copies. */
export function staleCopiesCheck(copies: CopyReport[]): Check {
  const id = 'plugin.caches';
  const stale = copies.filter((c) => c.stale);
  if (!copies.length) return pass(id, 'no other copy of this plugin under ~/.cursor/plugins');
  if (!stale.length) return pass(id, `${copies.length} other copy(ies) identical to this one`);
  const first = stale[0]!;
  return warn(id, `${stale.length} of ${copies.length} copies stale; ${first.kind} ${tilde(first.dir)}: ${describeDifferences(first)}`,
    `Run ${pluginCommand('scripts/refresh-cursor-runtime.mjs')} --fix, then reload Cursor`,
    stale.map((c) => ({ kind: c.kind, dir: c.dir, version: c.version, differences: c.differences.length })));
}
