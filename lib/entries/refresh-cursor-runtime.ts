import { exitOnPluginError, parseCommandLine } from '../platform/cli.js';
import { exitCodeFor, renderJson, renderTable } from '../platform/report.js';
import { copyChecks, refreshCopies } from '../agentstack/plugin/runtimeRefresh.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';

const { values } = parseCommandLine({
  name: 'refresh-cursor-runtime',
  usage: `Usage: node refresh-cursor-runtime.mjs [--fix] [--purge] [--json]

Finds copies of this plugin under ~/.cursor/plugins (local, cache, marketplaces) and reports the
ones whose version or files differ from this copy (a logo that does not show is the usual symptom).

Options:
  --fix         replace stale files atomically (keeping each file's mode)
  --purge       remove cached copies so Cursor fetches them again
  --json        machine-readable output
  -h, --help    show this help`,
  options: { fix: { type: 'boolean' }, purge: { type: 'boolean' }, json: { type: 'boolean' } },
});

const source = pluginRootFrom(import.meta.url);
const result = await Promise.resolve()
  .then(() => refreshCopies(source, { fix: values.fix === true, purge: values.purge === true }))
  .catch(exitOnPluginError('refresh-cursor-runtime'));
const checks = copyChecks(source, result);
const title = `Copies of this plugin under ~/.cursor/plugins (source: ${source})`;
process.stdout.write(values.json ? renderJson(title, checks, { source, changes: result.changes }) : renderTable(title, checks));
if (!values.json && result.changes.length) process.stdout.write(`\nChanged:\n${result.changes.map((c) => `  ${c}`).join('\n')}\n`);
process.exitCode = exitCodeFor(checks);
