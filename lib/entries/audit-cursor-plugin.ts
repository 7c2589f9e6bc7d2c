import { resolve } from 'node:path';
import { auditPlugin } from '../commands/audit/auditPlugin.js';
import { parseCommandLine, usageError } from '../platform/cli.js';
import { exitCodeFor, renderJson, renderTable } from '../platform/report.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';

const { values, positionals } = parseCommandLine({
  name: 'audit-cursor-plugin',
  usage: `Usage: node audit-cursor-plugin.mjs [DIR] [--no-rebuild] [--json]

Audits a Cursor plugin folder (default: this plugin) against Cursor's plugin schema and the
AgentStack anti-patterns. Exit 1 on any FAIL.

Options:
  --no-rebuild  do not rebuild the bundles to compare them (check their banner instead)
  --json        machine-readable output
  -h, --help    show this help`,
  options: { json: { type: 'boolean' }, 'no-rebuild': { type: 'boolean' } },
  allowPositionals: true,
});

if (positionals.length > 1) usageError('audit-cursor-plugin', 'give at most one DIR');
const dir = positionals[0] ? resolve(positionals[0]) : pluginRootFrom(import.meta.url);
const checks = auditPlugin(dir, { noRebuild: values['no-rebuild'] === true });
const title = `Cursor plugin audit: ${dir}`;
process.stdout.write(values.json ? renderJson(title, checks, { dir }) : renderTable(title, checks));
process.exitCode = exitCodeFor(checks);
