import { parseCommandLine, usageError } from '../platform/cli.js';
import { runDeviceFlow } from '../agentstack/signIn/flow.js';
import { createReporter } from '../agentstack/signIn/output.js';
import { PluginError } from '../platform/errors.js';
import { parseProjectId } from '../agentstack/mcpJson/entry.js';
import { cursorPaths } from '../agentstack/server/paths.js';
import { writeProjectPin } from '../agentstack/auth/projectPin.js';
import { BASE_SCOPES, DEFAULT_SCOPE_PRESET, isScopePreset, scopeStringFor } from '../agentstack/auth/scopes.js';

const spec = {
  name: 'device-code',
  usage: `Usage: node device-code.mjs [options]

Signs this machine in to AgentStack with the OAuth Device Code flow and writes the lean
"agentstack" entry (Bearer) to ~/.cursor/mcp.json.

Options:
  --scope-preset NAME  full (default), readonly or builder
  --scopes "A B"       explicit space-separated scopes (overrides the preset; openid and
                       offline_access are added)
  --project ID         pin this project (an integer > 1) before signing in; "none" removes the pin
                       (written to ~/.cursor/agentstack-project, mode 0600)
  --no-browser         print the URL and code; do not open a browser (alias --headless)
  --logout             sign out instead: revoke the grant at the server, remove the Bearer from mcp.json
                       and the refresh token, identity cache and capability snapshot (the pin stays)
  --json               one JSON event per line on stdout; human text on stderr
  -h, --help           show this help

Environment: AGENTSTACK_BASE_URL, AGENTSTACK_CURSOR_DIR, AGENTSTACK_PROJECT_ID,
             AGENTSTACK_OAUTH_CLIENT_ID, AGENTSTACK_OAUTH_CLIENT_SECRET
Exit codes: 0 signed in (or a sign-in is already running; with --logout: signed out on this machine,
even if the server could not revoke), 1 failed or cancelled (Ctrl-C: error "aborted"), 2 bad usage.`,
  options: {
    'scope-preset': { type: 'string' },
    scopes: { type: 'string' },
    project: { type: 'string' },
    'no-browser': { type: 'boolean' },
    headless: { type: 'boolean' },
    json: { type: 'boolean' },
    logout: { type: 'boolean' },
  },
} as const;

function usage(message: string): never {
  return usageError('device-code', message);
}

function scopesFrom(values: Record<string, unknown>): string {
  if (typeof values.scopes === 'string') {
    const asked = values.scopes.split(/[\s,]+/).filter(Boolean);
    if (!asked.length) usage('--scopes needs at least one scope');
    return [...new Set([...BASE_SCOPES, ...asked])].join(' ');
  }
  const preset = typeof values['scope-preset'] === 'string' ? values['scope-preset'] : DEFAULT_SCOPE_PRESET;
  if (!isScopePreset(preset)) usage(`unknown --scope-preset ${JSON.stringify(preset)} (use full, readonly or builder)`);
  return scopeStringFor(preset);
}

/** `--project ID|none`: validated here, written by the kernel (atomic, 0600) before the sign-in reads it. */
function pinFrom(values: Record<string, unknown>): number | null | undefined {
  if (typeof values.project !== 'string') return undefined;
  if (values.project.trim().toLowerCase() === 'none') return null;
  const id = parseProjectId(values.project);
  if (id === null) usage(`--project must be an integer greater than 1, or "none" (got ${JSON.stringify(values.project.slice(0, 40))}); project 1 is shared and cannot be pinned`);
  return id;
}

/** Writes (or removes) the pin file; a folder it cannot write to is a clear invalid_config, not a stack trace. */
function writePin(pin: number | null): void {
  const path = cursorPaths(process.env).project;
  try {
    writeProjectPin(path, pin);
  } catch (error) {
    if (error instanceof PluginError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PluginError('invalid_config', `Cannot write the project pin ${path} (${code}); check that the folder is writable.`);
  }
  if (process.env.AGENTSTACK_PROJECT_ID?.trim()) process.stderr.write('! AGENTSTACK_PROJECT_ID is set and overrides the pin file for this sign-in.\n');
}

async function main(): Promise<number> {
  const { values } = parseCommandLine({ ...spec, options: { ...spec.options } });
  if (values.logout) {
    const extra = ['scope-preset', 'scopes', 'project'].find((name) => values[name] !== undefined);
    if (extra) usage(`--logout cannot be combined with --${extra}`);
    const { runLogout } = await import('../commands/deviceCode/logout.js');
    return runLogout({ json: Boolean(values.json), env: process.env, streams: { stdout: process.stdout, stderr: process.stderr } });
  }
  const scopes = scopesFrom(values);
  const pin = pinFrom(values);
  const reporter = createReporter({ json: Boolean(values.json), streams: { stdout: process.stdout, stderr: process.stderr } });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let pinned = false;
  try {
    if (pin !== undefined) {
      writePin(pin);
      pinned = true;
    }
    const outcome = await runDeviceFlow({
      env: process.env,
      scopes,
      openBrowser: !(values['no-browser'] || values.headless),
      signal: controller.signal,
      onEvent: reporter.onEvent,
    });
    if (outcome.status === 'already_running') reporter.alreadyRunning(outcome.holder);
    return 0;
  } catch (error) {
    if (controller.signal.aborted) {
      const changed = pinned ? 'only the project pin was written' : 'nothing was changed';
      return reporter.fail(new PluginError('aborted', `Sign-in cancelled; ${changed}. Run it again when you are ready.`));
    }
    return reporter.fail(error);
  } finally {
    reporter.stop();
  }
}

process.exit(await main());
