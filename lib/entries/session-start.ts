import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quoteShort } from '../platform/errors.js';
import { answerHook, logHook, parseHookJson, readStdinBounded } from '../platform/hookIo.js';
import { SessionStartInputSchema } from '../schemas/hooks.js';
import type { NetModule } from '../commands/sessionStart/run.js';
import { POLLER_FLAG } from '../agentstack/signIn/pollerFlag.js';

const NAME = 'session-start';
const USAGE = `Usage: node session-start.mjs --from-hook

Cursor sessionStart hook: reads the hook JSON on stdin, keeps ~/.cursor/mcp.json lean, refreshes the
AgentStack token, starts a sign-in when one is needed, refreshes the capability snapshot, and prints
{"additional_context": "..."}. Always exits 0.

Options:
  --from-hook   run as Cursor's hook (stdin JSON in, one JSON object out)
  -h, --help    show this help

Environment: AGENTSTACK_BASE_URL, AGENTSTACK_CURSOR_DIR, AGENTSTACK_DISABLE_AUTO_LOGIN=1`;

const script = fileURLToPath(import.meta.url);
// The network steps stay in this one bundle, but behind import(): esbuild then evaluates undici and oauth4webapi only
// when a step needs the network, which keeps the no-network path inside its start-up budget.
const loadNet = (): Promise<NetModule> => import('../commands/sessionStart/net.js');
// The bundle lives in <root>/hooks/scripts/.
const pluginRoot = resolve(dirname(script), '../..');

async function hook(): Promise<object> {
  const { parseCommandLine } = await import('../platform/cli.js');
  parseCommandLine({ name: NAME, usage: USAGE, options: { 'from-hook': { type: 'boolean' } } });
  const stdin = await readStdinBounded({ timeoutMs: 1_000, maxBytes: 1024 * 1024 });
  if (stdin.problem) logHook(NAME, `stdin ${stdin.problem}; continuing without it`);
  // Nothing in the input changes what the hook does; an unexpected shape is only logged.
  else if (!SessionStartInputSchema.safeParse(parseHookJson(stdin.text)).success) logHook(NAME, 'stdin is not a sessionStart JSON object; continuing');
  const { runSessionStart, SESSION_START_BUDGET_MS } = await import('../commands/sessionStart/run.js');
  const deadline = new Promise<object>((res) => {
    // A last resort: every step has its own timeout, but the hook must answer even if one does not hold.
    setTimeout(() => res({ additional_context: `AgentStack plugin: the status check did not finish in time. Plugin root: ${pluginRoot}. Run node "${pluginRoot}/scripts/diagnose-local.mjs" for details.` }), SESSION_START_BUDGET_MS + 1_500).unref();
  });
  const card = runSessionStart({ env: process.env, pluginRoot, script, loadNet, log: (m) => logHook(NAME, m) }).then((text) => ({ additional_context: text }));
  return Promise.race([card, deadline]);
}

if (process.argv.includes(POLLER_FLAG)) {
  const { runDevicePoller } = await loadNet();
  process.exit(await runDevicePoller());
} else {
  hook()
    .then(answerHook)
    .catch((error: unknown) => {
      // Our own errors never carry a secret; the message says what broke (e.g. an unusable AGENTSTACK_CURSOR_DIR).
      const err = error as NodeJS.ErrnoException;
      const message = err?.message ?? String(error);
      const what = quoteShort(err?.code && !message.startsWith(err.code) ? `${err.code}: ${message}` : message, 200);
      logHook(NAME, `unexpected failure (${err?.name ?? 'error'}): ${what}`);
      answerHook({ additional_context: `AgentStack plugin: the status check failed (${what}). Plugin root: ${pluginRoot}. Run node "${pluginRoot}/scripts/diagnose-local.mjs" for details.` });
    });
}
