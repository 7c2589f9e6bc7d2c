/**
 * The pre-MCP hook's second stage: a call that may be AgentStack's, answered from the compiled gate when it holds
 * (gate/gate.ts), with the deny of an unknown action from its small chunk (gate/deny.ts), else by the full check
 * (run.ts). The hook's first stage, which every MCP call of every server runs, only reads the input and answers the
 * calls that plainly are not AgentStack's (front.ts), and loads this stage (platform/plainChunk.ts) for the rest
 * (build/bundles.mjs), so its own parse stays a few kilobytes.
 */
import { resolve } from 'node:path';
import { chunkCacheRoot, cursorPaths } from '../../agentstack/server/paths.js';
import { startRenewal } from '../../agentstack/renewal/start.js';
import { checkGate } from './gate/gate.js';
import { classifyCallInput, unreadableReason, type CallInput } from './front.js';

/**
 * Seconds after the process started past which the full check stops and answers `ask`: Cursor gives the hook 5 s
 * (hooks/hooks.json) and lets the call run when it has no answer by then.
 */
export const CHECK_DEADLINE_S = 3.5;

export interface CheckCallOptions {
  /** The hook script's folder, the plugin's `hooks/scripts` (its root and the renewal's script are found from it). */
  scriptDir: string;
  /** One stderr line for the hook log. */
  log: (message: string) => void;
}

/** The answer to an input the first stage could not answer alone: classified, then checked when it needs to be. */
export async function checkCallInput(input: CallInput, options: CheckCallOptions): Promise<object> {
  const front = classifyCallInput(input);
  if (front.kind === 'neutral') return (front.log && options.log(front.log), {});
  return checkCall(front.raw, options);
}

/** The answer to a call that may be AgentStack's: `{}`, `deny` or `ask`. */
export async function checkCall(raw: Record<string, unknown>, options: CheckCallOptions): Promise<object> {
  const { log } = options;
  const pluginRoot = resolve(options.scriptDir, '../..');
  const paths = cursorPaths(process.env);
  const renew = () => startRenewal({ paths, script: resolve(pluginRoot, 'hooks/scripts/session-start.cjs'), env: process.env, now: Date.now() });
  const gate = unreadableReason(raw) === null ? checkGate(raw, { paths, env: process.env, now: Date.now(), plugin: __PLUGIN_VERSION__, renew }) : { kind: 'call' as const };
  if (gate.kind === 'neutral') {
    if (gate.record) await recordRun(paths.hookRuns, raw, 'neutral', null);
    return {};
  }
  if (gate.kind === 'deny' || gate.kind === 'ask') {
    const { askFromGate, denyFromGate } = await import('./gate/deny.js');
    const o = { paths, now: Date.now(), plugin: __PLUGIN_VERSION__, log };
    const answer = gate.kind === 'deny' ? denyFromGate(raw, gate, o) : askFromGate(raw, gate, o);
    if (answer) return answer;
  }
  const { useChunkCache } = await import('../../platform/chunkLoader.js');
  try { useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ }); } catch { /* no usable Cursor dir: no cache */ }
  const [{ runPreMcp }, { journalAnswer }] = await Promise.all([import('./run.js'), import('./journal.js')]);
  let unknownForm: string | null = null;
  const answer = runPreMcp(raw, {
    pluginRoot, log, onUnknownForm: (what) => { unknownForm = what; },
    gate: gate.kind === 'stale' ? { stamps: gate.stamps, plugin: __PLUGIN_VERSION__ } : undefined,
    known: gate.kind === 'call' || gate.kind === 'deny' ? gate.known : undefined,
    deadline: CHECK_DEADLINE_S,
  });
  await recordRun(paths.hookRuns, raw, answer.permission ?? 'neutral', unknownForm);
  journalAnswer(raw, answer, { env: process.env, now: Date.now(), log });
  return answer;
}

/** The heartbeat diagnose-local reads (recorded for the calls this stage checks, so other servers' calls stay cheap). */
async function recordRun(path: string, input: Record<string, unknown>, outcome: string, unknownForm: string | null): Promise<void> {
  const { recordHookRun } = await import('../../agentstack/plugin/hookRuns.js');
  recordHookRun(path, 'pre-mcp', { now: Date.now(), input, pluginVersion: __PLUGIN_VERSION__, outcome, unknownForm });
}
