import { dirname, resolve } from 'node:path';
import { quoteShort } from '../platform/errors.js';
import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { parseHookJson } from '../platform/hookIo.js';
import { chunkCacheRoot, cursorPaths } from '../agentstack/server/paths.js';
import { checkSessionGate, saveSessionGate, type QuietRun } from '../commands/sessionStart/quick.js';
import type { NetModule } from '../commands/sessionStart/run.js';
import { POLLER_FLAG, RENEW_FLAG } from '../agentstack/signIn/pollerFlag.js';

const NAME = 'session-start';
const USAGE = `Usage: node session-start.cjs --from-hook

Cursor sessionStart hook: reads the hook JSON on stdin, keeps ~/.cursor/mcp.json lean, refreshes the
AgentStack token, starts a sign-in when one is needed, refreshes the capability snapshot, and prints
{"additional_context": "..."}. Always exits 0.

Options:
  --from-hook   run as Cursor's hook (stdin JSON in, one JSON object out)
  -h, --help    show this help
Environment: AGENTSTACK_BASE_URL, AGENTSTACK_CURSOR_DIR, AGENTSTACK_DISABLE_AUTO_LOGIN=1`;

const script = __filename;
// A small first stage: a quiet start is answered from its gate (quick.ts); the session logic and the network steps
// are sibling chunks (build/bundles.mjs), loaded through the code cache only when needed.
const loadNet = (): Promise<NetModule> => import('../commands/sessionStart/net.js');
const pluginRoot = resolve(dirname(script), '../..');

async function hook(): Promise<object> {
  if (process.argv.length > 3 || process.argv[2] !== '--from-hook') {
    const { parseCommandLine } = await import('../platform/cli.js');
    parseCommandLine({ name: NAME, usage: USAGE, options: { 'from-hook': { type: 'boolean' } } });
  }
  // The read goes on in Node's thread pool while the gate is checked (and, when it does not hold, the chunk loads).
  const reading = readStdinFast({ timeoutMs: 1_000, maxBytes: 1024 * 1024 });
  const gateOptions = { paths: cursorPaths(process.env), env: process.env, now: Date.now(), plugin: __PLUGIN_VERSION__, pluginRoot };
  const quick = checkSessionGate(gateOptions);
  if (quick.kind === 'hit') {
    const stdin = await reading;
    await recordRun(stdin.problem ? null : parseHookJson(stdin.text), 'answered');
    return { additional_context: quick.card };
  }
  await useCache();
  const [{ runSessionStart, SESSION_START_BUDGET_MS }, { SessionStartInputSchema }] = await Promise.all([import('../commands/sessionStart/run.js'), import('../schemas/hooks.js')]);
  const stdin = await reading;
  const input = stdin.problem ? null : parseHookJson(stdin.text);
  if (stdin.problem) logHookFast(NAME, `stdin ${stdin.problem}; continuing without it`);
  else if (!SessionStartInputSchema.safeParse(input).success) logHookFast(NAME, 'stdin is not a sessionStart JSON object; continuing');
  // A last resort: every step has its own timeout, but the hook must answer even if one does not hold.
  const deadline = new Promise<object>((res) => setTimeout(() => res({ additional_context: `AgentStack plugin: the status check did not finish in time. Plugin root: ${pluginRoot}. Run node "${pluginRoot}/scripts/diagnose-local.mjs" for details.` }), SESSION_START_BUDGET_MS + 1_500).unref());
  let outcome = 'timed-out';
  let quiet: QuietRun | undefined;
  const card = runSessionStart({ env: process.env, pluginRoot, script, loadNet, log: (m) => logHookFast(NAME, m), onQuiet: (run) => { quiet = run; } })
    .then((text) => ((outcome = 'answered'), { additional_context: text }));
  const answer = await Promise.race([card, deadline]);
  if (quiet) saveSessionGate(gateOptions, quick.stamps, quiet);
  await recordRun(input, outcome);
  return answer;
}

/** The heartbeat diagnose-local reads: that this hook ran, and how it ended (never a failure of its own). */
const recordRun = (input: Record<string, unknown> | null, outcome: string): Promise<unknown> => import('../agentstack/plugin/hookRuns.js')
  .then(({ recordHookRun }) => recordHookRun(cursorPaths(process.env).hookRuns, 'session-start', { now: Date.now(), input, pluginVersion: __PLUGIN_VERSION__, outcome }))
  .catch(() => { /* no usable Cursor dir: nothing to record */ });
/** No usable Cursor dir: no cache (the hook reports the dir itself). */
const useCache = () => import('../platform/chunkLoader.js').then(({ useChunkCache }) => useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ })).catch(() => {});

if (process.argv.includes(POLLER_FLAG) || process.argv.includes(RENEW_FLAG)) {
  // A detached background step: the device-code poller, or a token renewal the pre-MCP hook started.
  void useCache().then(loadNet).then(async (net) => process.exit(await (process.argv.includes(RENEW_FLAG) ? net.runRenewal() : net.runDevicePoller())));
} else {
  hook()
    .then(exitHook)
    .catch((error: unknown) => {
      const err = error as NodeJS.ErrnoException;
      const message = err?.message ?? String(error);
      const what = quoteShort(err?.code && !message.startsWith(err.code) ? `${err.code}: ${message}` : message, 200);
      logHookFast(NAME, `unexpected failure (${err?.name ?? 'error'}): ${what}`);
      void recordRun(null, 'failed').finally(() => exitHook({ additional_context: `AgentStack plugin: the status check failed (${what}). Plugin root: ${pluginRoot}. Run node "${pluginRoot}/scripts/diagnose-local.mjs" for details.` }));
    });
}
