import { exitOnPluginError, parseCommandLine, usageError } from '../platform/cli.js';
import { assertCursorDirIsFolder } from '../agentstack/server/paths.js';
import { prepareDeviceCode, type DeviceCodeRequest } from '../commands/deviceCode/prepare.js';
import { runDeviceCode } from '../commands/deviceCode/run.js';
import { traceScriptIfAsked } from '../agentstack/debug/trace.js';

const spec = {
  name: 'device-code',
  usage: `Usage: node device-code.mjs [options]

Signs this machine in to AgentStack with the OAuth Device Code flow and writes the lean
"agentstack" entry (Bearer) to ~/.cursor/mcp.json.

Options:
  --scope-preset NAME  full, readonly or builder (default: the scope-preset setting, else full);
                       follows the scopes the server names (401 challenge, else resource
                       metadata): full = all, readonly = read, builder = read + execute/write
  --scopes "A B"       explicit space-separated scopes (overrides the preset; offline_access
                       is added when the authorization server offers it; a scope the server
                       does not offer is refused)
  --project ID         pin this project (an integer > 1) before signing in; "none" removes the pin
                       (written to ~/.cursor/agentstack-project, mode 0600)
  --no-browser         print the URL and code; do not open a browser (alias --headless)
  --status [--online]  who is signed in, where, until when, with which scopes, the project and the rules
                       (at most ten lines, no network; --online asks the server); exit 0 signed in, 1 not
  --logout             sign out instead: revoke the grant at the server, remove the Bearer from mcp.json
                       and the refresh token, identity cache and capability snapshot (the pin and the
                       activity journal stay; add --purge-journal to remove the journal too)
  --json               one JSON event per line on stdout; human text on stderr
  --debug              trace every HTTP exchange on stderr, secrets masked (also AGENTSTACK_DEBUG=api)
  -h, --help           show this help

Environment (wins over ~/.cursor/agentstack-settings.json, see config.mjs): AGENTSTACK_BASE_URL,
  AGENTSTACK_CURSOR_DIR, AGENTSTACK_PROJECT_ID, AGENTSTACK_SCOPE_PRESET, AGENTSTACK_OAUTH_CLIENT_ID,
  AGENTSTACK_OAUTH_CLIENT_SECRET, AGENTSTACK_DEBUG, HTTPS_PROXY, NO_PROXY
Exit codes: 0 signed in (or a sign-in is already running; with --logout: signed out on this machine,
even if the server could not revoke), 1 failed or cancelled (Ctrl-C: error "aborted"), 2 bad usage.`,
  options: {
    'scope-preset': { type: 'string' }, scopes: { type: 'string' }, project: { type: 'string' },
    'no-browser': { type: 'boolean' }, headless: { type: 'boolean' }, json: { type: 'boolean' }, logout: { type: 'boolean' },
    debug: { type: 'boolean' }, status: { type: 'boolean' }, online: { type: 'boolean' }, 'purge-journal': { type: 'boolean' },
  },
} as const;

async function main(): Promise<number> {
  const { values } = parseCommandLine({ ...spec, options: { ...spec.options } });
  traceScriptIfAsked(values.debug);
  try { assertCursorDirIsFolder(process.env); } catch (error) { exitOnPluginError('device-code')(error); }
  for (const [flag, needs] of [['online', 'status'], ['purge-journal', 'logout']] as const) if (values[flag] && !values[needs]) usageError('device-code', `--${flag} works only with --${needs}`);
  const refuseWith = (mode: string, names: string[]) => {
    const extra = names.find((name) => values[name as keyof typeof values] !== undefined);
    if (extra) usageError('device-code', `--${mode} cannot be combined with --${extra}`);
  };
  if (values.status) {
    refuseWith('status', ['scope-preset', 'scopes', 'project', 'logout', 'no-browser', 'headless']);
    const { runStatus } = await import('../commands/deviceCode/status.js');
    return runStatus({ env: process.env, json: Boolean(values.json), online: Boolean(values.online), streams: { stdout: process.stdout } });
  }
  if (values.logout) {
    refuseWith('logout', ['scope-preset', 'scopes', 'project']);
    const { runLogout } = await import('../commands/deviceCode/logout.js');
    return runLogout({ json: Boolean(values.json), env: process.env, streams: { stdout: process.stdout, stderr: process.stderr }, purgeJournal: Boolean(values['purge-journal']) });
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  let request: DeviceCodeRequest;
  try {
    request = prepareDeviceCode({
      scopes: text(values.scopes),
      scopePreset: text(values['scope-preset']),
      project: text(values.project),
      noBrowser: Boolean(values['no-browser'] || values.headless),
      json: Boolean(values.json),
    });
  } catch (error) {
    return usageError('device-code', (error as Error).message);
  }
  return runDeviceCode(request);
}

process.exit(await main());
