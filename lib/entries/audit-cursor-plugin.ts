import { resolve } from 'node:path';
import { PROFILES, type ProfileChoice } from '../commands/audit/auditPlugin.js';
import { auditTarget } from '../commands/audit/target.js';
import { parseCommandLine, usageError } from '../platform/cli.js';
import { exitCodeFor, renderJson, renderTable } from '../platform/report.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';
import { progressNotes } from '../platform/progress.js';

const { values, positionals } = parseCommandLine({
  name: 'audit-cursor-plugin',
  usage: `Usage: node audit-cursor-plugin.mjs [DIR] [--profile auto|generic|agentstack] [--rebuild | --no-rebuild] [--json]

Audits a Cursor plugin folder, or a marketplace repository plugin by plugin (default: this plugin).
Generic rules hold for any plugin; AgentStack's rules apply to AgentStack's plugin. Exit 1 on any FAIL,
2 when DIR is missing, not a folder or unreadable (or on bad usage).
Never runs code from the folder it audits, unless you pass --rebuild.

Options:
  --profile P   auto (default: agentstack for the plugin named "agentstack", else generic), generic, agentstack
  --rebuild     rebuild the audited folder's bundles with its own build/build.mjs and compare (runs its code)
  --no-rebuild  do not rebuild even this repository's own bundles (check their banner instead)
  --json        machine-readable output
  -h, --help    show this help`,
  options: { json: { type: 'boolean' }, profile: { type: 'string' }, rebuild: { type: 'boolean' }, 'no-rebuild': { type: 'boolean' } },
  allowPositionals: true,
});

if (positionals.length > 1) usageError('audit-cursor-plugin', 'give at most one DIR');
const profile = (values.profile ?? 'auto') as ProfileChoice;
if (!PROFILES.includes(profile)) usageError('audit-cursor-plugin', `--profile must be one of ${PROFILES.join(', ')}`);
if (values.rebuild && values['no-rebuild']) usageError('audit-cursor-plugin', 'give --rebuild or --no-rebuild, not both');
const ownTree = pluginRootFrom(import.meta.url);
const dir = positionals[0] ? resolve(positionals[0]) : ownTree;
const onProgress = progressNotes({ json: values.json === true });
const target = auditTarget(dir, { profile, ownTree, rebuild: values.rebuild === true, noRebuild: values['no-rebuild'] === true, onProgress });
if (target.kind === 'unusable') {
  if (values.json) process.stdout.write(`${JSON.stringify({ error: 'usage', message: target.line })}\n`);
  process.stderr.write(`audit-cursor-plugin: ${target.line}\n`);
  process.exit(2);
}
const { report } = target;
const title = report.kind === 'marketplace'
  ? `Cursor marketplace audit: ${dir} (${report.plugins.length} plugins)`
  : `Cursor plugin audit: ${dir} (profile ${report.profile})`;
const { checks, ...extra } = report;
process.stdout.write(values.json ? renderJson(title, checks, extra) : renderTable(title, checks));
process.exitCode = exitCodeFor(checks);
