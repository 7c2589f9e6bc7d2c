import { dirname, resolve } from 'node:path';
import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { readPreMcpInput, unreadableReason } from '../commands/preMcp/front.js';
import { startRenewal } from '../agentstack/renewal/start.js';

const NAME = 'pre-mcp-cap-check';
const USAGE = `Usage: node pre-mcp-cap-check.cjs < hook-input.json

Cursor beforeMCPExecution hook: checks agentstack.execute calls against the capability snapshot and
answers {"permission": "deny" | "ask", ...} when a call cannot work or uses an action you have not
approved yet. Every other call gets {} (Cursor's own approval rules apply; this hook never answers "allow").
Always exits 0.

Options:
  -h, --help    show this help`;

// Runs before every MCP call: this first stage answers every call that is not AgentStack's, and most that are (from
// the compiled gate); the full check is a sibling chunk (build/bundles.mjs). Set once the call needs the check: a
// failure after that answers `ask`, never `{}`.
let executeCall = false;
const pluginRoot = resolve(dirname(__filename), '../..');

async function main(): Promise<object> {
  // Cursor runs the hook without arguments; the argument parser is loaded only when there are some.
  if (process.argv.length > 2) {
    const { parseCommandLine } = await import('../platform/cli.js');
    parseCommandLine({ name: NAME, usage: USAGE, options: {}, allowPositionals: true });
  }
  const front = await readPreMcpInput({ read: readStdinFast });
  if (front.kind === 'neutral') return (front.log && logHookFast(NAME, front.log), {});
  executeCall = true;
  // Imported here, so a call to another server never loads node:os.
  const [{ cursorPaths, chunkCacheRoot }, { checkGate }] = await Promise.all([import('../agentstack/server/paths.js'), import('../commands/preMcp/gate/gate.js')]);
  const paths = cursorPaths(process.env);
  const renew = () => startRenewal({ paths, script: resolve(pluginRoot, 'hooks/scripts/session-start.cjs'), env: process.env, now: Date.now() });
  const gate = unreadableReason(front.raw) === null ? checkGate(front.raw, { paths, env: process.env, now: Date.now(), plugin: __PLUGIN_VERSION__, renew }) : { kind: 'call' as const };
  if (gate.kind === 'neutral') {
    if (gate.record) await recordRun(paths.hookRuns, front.raw, 'neutral', null);
    return {};
  }
  if (gate.kind === 'deny') {
    const { denyFromGate } = await import('../commands/preMcp/gate/deny.js');
    const answer = denyFromGate(front.raw, gate, { paths, now: Date.now(), plugin: __PLUGIN_VERSION__, log: (m) => logHookFast(NAME, m) });
    if (answer) return answer;
  }
  const { useChunkCache } = await import('../platform/chunkLoader.js');
  try { useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ }); } catch { /* no usable Cursor dir: no cache */ }
  const [{ runPreMcp }, { journalAnswer }] = await Promise.all([import('../commands/preMcp/run.js'), import('../commands/preMcp/journal.js')]);
  let unknownForm: string | null = null;
  const answer = runPreMcp(front.raw, {
    pluginRoot, log: (m) => logHookFast(NAME, m), onUnknownForm: (what) => { unknownForm = what; },
    gate: gate.kind === 'stale' ? { stamps: gate.stamps, plugin: __PLUGIN_VERSION__ } : undefined,
    known: gate.kind === 'call' || gate.kind === 'deny' ? gate.known : undefined,
  });
  await recordRun(paths.hookRuns, front.raw, answer.permission ?? 'neutral', unknownForm);
  journalAnswer(front.raw, answer, { env: process.env, now: Date.now(), log: (m) => logHookFast(NAME, m) });
  return answer;
}

/** The heartbeat diagnose-local reads (recorded for the calls this stage checks, so other servers' calls stay cheap). */
async function recordRun(path: string, input: Record<string, unknown>, outcome: string, unknownForm: string | null): Promise<void> {
  const { recordHookRun } = await import('../agentstack/plugin/hookRuns.js');
  recordHookRun(path, 'pre-mcp', { now: Date.now(), input, pluginVersion: __PLUGIN_VERSION__, outcome, unknownForm });
}

main()
  .then(exitHook)
  .catch((error: unknown) => {
    const name = (error as Error)?.name ?? 'error';
    if (!executeCall) return (logHookFast(NAME, `unexpected failure (${name}); answering neutral`), exitHook({}));
    // An execute call the check could not finish: the person decides, as for a call the hook could not read.
    logHookFast(NAME, `unexpected failure (${name}) checking an execute call; answering ask`);
    exitHook({
      permission: 'ask',
      user_message: `AgentStack's pre-call check failed (${name}), so this call's actions were not checked. Allow only if you expect this call; run /agentstack-diagnose if this repeats.`,
      agent_message: 'The AgentStack pre-call check failed internally, so this call was not checked; the person was asked to approve it.',
    });
  });
