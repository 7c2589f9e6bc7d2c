import { exitOnPluginError, parseCommandLine } from '../platform/cli.js';
import { assertCursorDirIsFolder } from '../agentstack/server/paths.js';
import { diagnose } from '../commands/diagnose/run.js';
import { exitCodeFor, renderJson, renderTable } from '../platform/report.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';
import { renderSettingsTable, rowJson } from '../commands/config/render.js';

const { values } = parseCommandLine({
  name: 'diagnose-local',
  usage: `Usage: node diagnose-local.mjs [--online] [--fix] [--approve-actions] [--json]

Checks this machine's AgentStack setup: plugin files, ~/.cursor/mcp.json, token expiry, refresh token,
project pin, settings, capability snapshot, device lock, plugin caches, then the settings in effect. Each gate PASS / WARN / FAIL with its fix.
Never prints a secret: the token is shown masked. Exit 1 when a gate fails.

Options:
  --online            also call GET /api/auth/me and probe the MCP surface
  --fix               apply safe repairs (normalize mcp.json, chmod 0600, remove a stale lock)
  --approve-actions   mark every action in the capability snapshot as approved
  --json              machine-readable output
  -h, --help          show this help`,
  options: {
    online: { type: 'boolean' },
    fix: { type: 'boolean' },
    'approve-actions': { type: 'boolean' },
    json: { type: 'boolean' },
  },
});

const source = pluginRootFrom(import.meta.url);
try { assertCursorDirIsFolder(process.env); } catch (error) { exitOnPluginError('diagnose-local')(error); }
const result = await diagnose({
  source,
  fix: values.fix === true,
  online: values.online === true,
  approveActions: values['approve-actions'] === true,
}).catch(exitOnPluginError('diagnose-local'));
const title = `AgentStack diagnosis (plugin: ${source})`;
if (values.json) {
  process.stdout.write(renderJson(title, result.checks, { changes: result.changes, settings: result.settings.map(rowJson) }));
} else {
  if (result.changes.length) process.stdout.write(`Changed:\n${result.changes.map((c) => `  ${c}`).join('\n')}\n\n`);
  process.stdout.write(renderTable(title, result.checks));
  const table = renderSettingsTable(result.settings).trimEnd().replace(/^/gm, '  ');
  process.stdout.write(`\nSettings in effect (environment > ~/.cursor/agentstack-settings.json > default; change them with scripts/config.mjs):\n${table}\n`);
}
process.exitCode = exitCodeFor(result.checks);
