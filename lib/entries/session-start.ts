import { dirname, resolve } from 'node:path';
import { quoteShort } from '../platform/errors.js';
import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { parseHookJson } from '../platform/hookIo.js';
import { cursorPaths } from '../agentstack/server/paths.js';
import { checkSessionGate } from '../commands/sessionStart/quick.js';
import { POLLER_FLAG, RENEW_FLAG } from '../agentstack/signIn/pollerFlag.js';

const NAME = 'session-start';
const script = __filename;
// A small first stage: a quiet start is answered from its gate (quick.ts); everything else (the full run, the
// background steps, the command line) is a plain sibling chunk (commands/sessionStart/full.ts), which loads the
// session logic and the network steps through the code cache (build/bundles.mjs).
const loadFull = () => import('../commands/sessionStart/full.js');
const pluginRoot = resolve(dirname(script), '../..');

async function hook(): Promise<object> {
  if (process.argv.length > 3 || process.argv[2] !== '--from-hook') await (await loadFull()).parseSessionStartArguments();
  const gateOptions = { paths: cursorPaths(process.env), env: process.env, now: Date.now(), plugin: __PLUGIN_VERSION__, pluginRoot };
  const quick = checkSessionGate(gateOptions);
  // A quiet start does its file work synchronously, so the stdin read is the thread pool's only work: one thread. A
  // full run keeps the pool's four (its network and file steps use it, and a stdin that never closes holds one), and
  // its read goes on while the chunks load.
  const reading = readStdinFast({ timeoutMs: 1_000, maxBytes: 1024 * 1024, onePoolThread: quick.kind === 'hit' });
  if (quick.kind === 'hit') {
    const stdin = await reading;
    await recordRun(stdin.problem ? null : parseHookJson(stdin.text), 'answered');
    return { additional_context: quick.card };
  }
  return (await loadFull()).runFullSessionStart({ gateOptions, stamps: quick.stamps, reading, script, recordRun });
}

/** The heartbeat diagnose-local reads: that this hook ran, and how it ended (never a failure of its own). */
const recordRun = (input: Record<string, unknown> | null, outcome: string): Promise<unknown> => import('../agentstack/plugin/hookRuns.js')
  .then(({ recordHookRun }) => recordHookRun(cursorPaths(process.env).hookRuns, 'session-start', { now: Date.now(), input, pluginVersion: __PLUGIN_VERSION__, outcome }))
  .catch(() => { /* no usable Cursor dir: nothing to record */ });

if (process.argv.includes(POLLER_FLAG) || process.argv.includes(RENEW_FLAG)) {
  void loadFull().then((full) => full.runBackgroundStep());
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
