import { parseCommandLine, usageError } from '../platform/cli.js';
import { pluginRootFrom } from '../agentstack/plugin/runtimeCopies.js';
import { readFileSync } from 'node:fs';
import { installHooks, removeHooks } from '../commands/managed/install.js';
import { gateStatus, renderGateStatus } from '../commands/managed/status.js';

const { values, positionals } = parseCommandLine({
  name: 'managed',
  usage: `Usage: node managed.mjs install-hooks [--node PATH] [--catalog FILE] | remove-hooks | status [--json]

For administrators: the organization's gate in Cursor's enterprise hooks file, so the managed rules
(managed-settings.json) hold even when the plugin is turned off or removed, and a crash or timeout of the
check blocks the call instead of letting it through.

  install-hooks  copy the pre-MCP and after-MCP hooks to a folder only administrators can write
                 (Linux /usr/local/lib/agentstack-cursor, macOS /Library/Application Support/AgentStack/cursor-gate,
                 Windows %ProgramData%\\AgentStack\\cursor-gate) and add their entries to Cursor's enterprise
                 hooks file (/etc/cursor/hooks.json; macOS /Library/Application Support/Cursor/hooks.json;
                 Windows C:\\ProgramData\\Cursor\\hooks.json), beforeMCPExecution with failClosed; every other
                 entry is kept as it is. Again after each plugin update.
  remove-hooks   take out only what install-hooks put in, the copy and the capability map
  status         whether the gate is in place, its version against this plugin's

Options:
  --node PATH  the node the entries run (absolute; only root may be able to change it); default: this node
  --catalog FILE  install-hooks: the server's GET /mcp/actions (FILE - for stdin), kept beside the copy as the
               capability map the organization's capability rules (deny-actions/ask-actions with a colon, a
               managed policy) judge actions by, rather than the person's capability snapshot
  --json       status: machine-readable output
  -h, --help   show this help

install-hooks and remove-hooks run as root (Administrator on Windows) only.
Exit codes: 0 done (status: in place), 1 failed or refused (status: not in place), 2 bad usage,
3 not root / Administrator (nothing changed).`,
  options: { node: { type: 'string' }, catalog: { type: 'string' }, json: { type: 'boolean' } },
  allowPositionals: true,
});

/** The catalog's text (FILE `-`: stdin); a file that cannot be read is a usage error, before anything changes. */
function readCatalogArg(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    return usageError('managed', `--catalog ${JSON.stringify(file.slice(0, 200))} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

const [action, ...rest] = positionals;
if (action !== 'install-hooks' && action !== 'remove-hooks' && action !== 'status') usageError('managed', `give install-hooks, remove-hooks or status${action ? ` (got ${JSON.stringify(action.slice(0, 40))})` : ''}`);
if (rest.length) usageError('managed', `${action} takes no further arguments`);
if (values.node !== undefined && action !== 'install-hooks') usageError('managed', '--node works only with install-hooks');
if (values.catalog !== undefined && action !== 'install-hooks') usageError('managed', '--catalog works only with install-hooks');
if (values.json && action !== 'status') usageError('managed', '--json works only with status');

if (action === 'status') {
  const status = gateStatus(__PLUGIN_VERSION__);
  process.stdout.write(renderGateStatus(status, values.json === true));
  process.exitCode = status.in_place ? 0 : 1;
} else {
  const result = action === 'install-hooks'
    ? installHooks({ pluginRoot: pluginRootFrom(import.meta.url), node: values.node as string | undefined, version: __PLUGIN_VERSION__, catalog: readCatalogArg(values.catalog as string | undefined) })
    : removeHooks({});
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}
