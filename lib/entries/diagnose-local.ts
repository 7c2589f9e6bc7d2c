import { exitOnPluginError, parseCommandLine, usageError } from '../platform/cli.js';
import { assertCursorDirIsFolder } from '../agentstack/server/paths.js';
import { diagnose } from '../commands/diagnose/run.js';
import { exitCodeFor, renderJson, renderTable } from '../platform/report.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';
import { tilde } from '../platform/text/tilde.js';
import { CONFIG_COMMAND } from '../agentstack/state/story.js';
import { renderSettingsTable, rowJson } from '../commands/config/render.js';
import { traceScriptIfAsked } from '../agentstack/debug/trace.js';
import { cursorPaths } from '../agentstack/server/paths.js';
import { gatherReportFacts, renderReport, systemDescription } from '../commands/diagnose/report.js';

const { values } = parseCommandLine({
  name: 'diagnose-local',
  usage: `Usage: node diagnose-local.mjs [--online] [--fix] [--approve-actions] [--json | --report [--include-account]] [--debug]

Checks this machine's AgentStack setup: plugin files, ~/.cursor/mcp.json, token expiry, refresh token,
project pin, settings, capability snapshot, device lock, plugin caches, then the settings in effect. Each gate PASS / WARN / FAIL with its fix.
Never prints a secret: the token is shown masked. Exit 1 when a gate fails.

Options:
  --online            also call GET /api/auth/me and probe the MCP surface
  --fix               apply safe repairs (normalize mcp.json, chmod 0600, remove a stale lock)
  --approve-actions   mark every action in the capability snapshot as approved
  --json              machine-readable output
  --report            a Markdown report for a support ticket (implies --online): versions, every row, the
                      settings, the last sign-in's log and API trace; it never holds a secret, and masks
                      your e-mail and home folder
  --include-account   with --report: keep your account's e-mail and home-folder paths
  --debug             trace every HTTP exchange on stderr, secrets masked (also AGENTSTACK_DEBUG=api)
  -h, --help          show this help`,
  options: {
    online: { type: 'boolean' },
    fix: { type: 'boolean' },
    'approve-actions': { type: 'boolean' },
    json: { type: 'boolean' },
    report: { type: 'boolean' },
    'include-account': { type: 'boolean' },
    debug: { type: 'boolean' },
  },
});

if (values.json && values.report) usageError('diagnose-local', 'give --json or --report, not both');
if (values['include-account'] && !values.report) usageError('diagnose-local', '--include-account works only with --report');
const traceOn = traceScriptIfAsked(values.debug);

const source = pluginRootFrom(import.meta.url);
try { assertCursorDirIsFolder(process.env); } catch (error) { exitOnPluginError('diagnose-local')(error); }
const result = await diagnose({
  source,
  fix: values.fix === true,
  online: values.online === true || values.report === true,
  approveActions: values['approve-actions'] === true,
}).catch(exitOnPluginError('diagnose-local'));
const title = `AgentStack diagnosis (plugin: ${tilde(source)})`;
if (values.report) {
  const paths = cursorPaths();
  const { tails, secrets } = gatherReportFacts(paths, process.env, traceOn, result.hookRuns);
  const facts = { ...tails, pluginVersion: __PLUGIN_VERSION__, pluginRoot: source, nodeVersion: process.version, os: systemDescription(), title, ...result, generatedAt: new Date(), includeAccount: values['include-account'] === true };
  process.stdout.write(renderReport(facts, paths, secrets));
} else if (values.json) {
  process.stdout.write(renderJson(title, result.checks, { account: result.account, changes: result.changes, settings: result.settings.map(rowJson) }));
} else {
  if (result.changes.length) process.stdout.write(`Changed:\n${result.changes.map((c) => `  ${c}`).join('\n')}\n\n`);
  process.stdout.write(renderTable(title, result.checks));
  const table = renderSettingsTable(result.settings).trimEnd().replace(/^/gm, '  ');
  process.stdout.write(`\nSettings in effect (environment > ~/.cursor/agentstack-settings.json > default; change them with ${CONFIG_COMMAND}):\n${table}\n`);
}
process.exitCode = exitCodeFor(result.checks);
