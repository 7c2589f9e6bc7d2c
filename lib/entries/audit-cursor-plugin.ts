import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { auditFolder, PROFILES, type ProfileChoice } from '../commands/audit/auditPlugin.js';
import { parseCommandLine, usageError } from '../platform/cli.js';
import { exitCodeFor, renderJson, renderTable } from '../platform/report.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';

/** Why `dir` cannot be audited (missing, a file), or null. */
function notAFolder(dir: string): string | null {
  try {
    return statSync(dir).isDirectory() ? null : `${dir} is a file; give the plugin's folder (the one holding .cursor-plugin/plugin.json)`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${dir} does not exist; give the plugin's folder` : `${dir} cannot be read (${code ?? 'error'})`;
  }
}

const { values, positionals } = parseCommandLine({
  name: 'audit-cursor-plugin',
  usage: `Usage: node audit-cursor-plugin.mjs [DIR] [--profile auto|generic|agentstack] [--rebuild | --no-rebuild] [--json]

Audits a Cursor plugin folder, or a marketplace repository plugin by plugin (default: this plugin).
Generic rules hold for any plugin; AgentStack's rules apply to AgentStack's plugin. Exit 1 on any FAIL.
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
const folderProblem = notAFolder(dir);
if (folderProblem) usageError('audit-cursor-plugin', folderProblem);
const report = auditFolder(dir, { profile, ownTree, rebuild: values.rebuild === true, noRebuild: values['no-rebuild'] === true });
const title = report.kind === 'marketplace'
  ? `Cursor marketplace audit: ${dir} (${report.plugins.length} plugins)`
  : `Cursor plugin audit: ${dir} (profile ${report.profile})`;
const { checks, ...extra } = report;
process.stdout.write(values.json ? renderJson(title, checks, extra) : renderTable(title, checks));
process.exitCode = exitCodeFor(checks);
