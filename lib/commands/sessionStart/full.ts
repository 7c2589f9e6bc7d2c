/**
 * Session start past its gate: the full run (the session logic and the network steps, from chunks loaded through the
 * code cache), the detached background steps (the device-code poller, a renewal), and the command line. The hook's
 * first stage answers a quiet start by itself and loads this module, a plain chunk (build/bundles.mjs), for the rest:
 * none of this code is parsed on a quiet start.
 */
import { chunkCacheRoot } from '../../agentstack/server/paths.js';
import { RENEW_FLAG } from '../../agentstack/signIn/pollerFlag.js';
import type { Stamp } from '../../platform/fs/fileStamps.js';
import { logHookFast } from '../../platform/fastHookIo.js';
import { parseHookJson, type StdinResult } from '../../platform/hookIo.js';
import { saveSessionGate, type QuietRun, type SessionGateOptions } from './quick.js';
import type { NetModule } from './run.js';

export const SESSION_START_NAME = 'session-start';

const USAGE = `Usage: node session-start.cjs --from-hook

Cursor sessionStart hook: reads the hook JSON on stdin, keeps ~/.cursor/mcp.json lean, refreshes the
AgentStack token, starts a sign-in when one is needed, refreshes the capability snapshot, and prints
{"additional_context": "..."}. Always exits 0.

Options:
  --from-hook   run as Cursor's hook (stdin JSON in, one JSON object out)
  -h, --help    show this help
Environment: AGENTSTACK_BASE_URL, AGENTSTACK_CURSOR_DIR, AGENTSTACK_DISABLE_AUTO_LOGIN=1`;

/** Prints the usage and exits on `--help`, exits 2 on anything but `--from-hook`. */
export async function parseSessionStartArguments(): Promise<void> {
  const { parseCommandLine } = await import('../../platform/cli.js');
  parseCommandLine({ name: SESSION_START_NAME, usage: USAGE, options: { 'from-hook': { type: 'boolean' } } });
}

const loadNet = (): Promise<NetModule> => import('./net.js');

/** No usable Cursor dir: no cache (the hook reports the dir itself). */
const useCache = () => import('../../platform/chunkLoader.js').then(({ useChunkCache }) => useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ })).catch(() => {});

export interface FullRunOptions {
  gateOptions: SessionGateOptions;
  /** The sources' stamps taken before anything was read (a quiet run compiles a new gate from them). */
  stamps: Stamp[] | null;
  reading: Promise<StdinResult>;
  /** The hook's own script (the background steps run it again). */
  script: string;
  recordRun: (input: Record<string, unknown> | null, outcome: string) => Promise<unknown>;
}

/** The full session start: its card, the gate compiled again after a quiet run, the heartbeat. */
export async function runFullSessionStart(o: FullRunOptions): Promise<object> {
  const { pluginRoot } = o.gateOptions;
  await useCache();
  const [{ runSessionStart, SESSION_START_BUDGET_MS }, { SessionStartInputSchema }] = await Promise.all([import('./run.js'), import('../../schemas/hooks.js')]);
  const stdin = await o.reading;
  const input = stdin.problem ? null : parseHookJson(stdin.text);
  const log = (m: string) => logHookFast(SESSION_START_NAME, m);
  if (stdin.problem) log(`stdin ${stdin.problem}; continuing without it`);
  else if (!SessionStartInputSchema.safeParse(input).success) log('stdin is not a sessionStart JSON object; continuing');
  // A last resort: every step has its own timeout, but the hook must answer even if one does not hold.
  const deadline = new Promise<object>((res) => setTimeout(() => res({ additional_context: `AgentStack plugin: the status check did not finish in time. Plugin root: ${pluginRoot}. Run node "${pluginRoot}/scripts/diagnose-local.mjs" for details.` }), SESSION_START_BUDGET_MS + 1_500).unref());
  let outcome = 'timed-out';
  let quiet: QuietRun | undefined;
  const card = runSessionStart({ env: process.env, pluginRoot, script: o.script, loadNet, log, onQuiet: (run) => { quiet = run; } })
    .then((text) => ((outcome = 'answered'), { additional_context: text }));
  const answer = await Promise.race([card, deadline]);
  if (quiet) saveSessionGate(o.gateOptions, o.stamps, quiet);
  await o.recordRun(input, outcome);
  return answer;
}

/** A detached background step (the device-code poller, or a token renewal the pre-MCP hook started): exits with its code. */
export function runBackgroundStep(): void {
  void useCache().then(loadNet).then(async (net) => process.exit(await (process.argv.includes(RENEW_FLAG) ? net.runRenewal() : net.runDevicePoller())));
}
