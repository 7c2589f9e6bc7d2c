/**
 * A call the gate does not answer `{}` by itself: the deny or the rules' ask from the gate (deny.ts), the heartbeat
 * of a neutral answer, the renewal the gate found due, and the full check (run.ts, through the code cache), for a
 * call the gate cannot answer and for input the hook could not read whole. Bundled with the deny chunk
 * (build/bundles.mjs), so the gate's `{}` to an execute call (check.ts) parses none of this.
 */
import { resolve } from 'node:path';
import { chunkCacheRoot, type CursorPaths } from '../../../agentstack/server/paths.js';
import { startRenewal } from '../../../agentstack/renewal/start.js';
import { classifyCallInput, type CallInput } from '../front.js';
import { askFromGate, denyFromGate } from './deny.js';
import type { GateCheck } from './gate.js';

/**
 * Seconds after the process started past which the full check stops and answers `ask`: Cursor gives the hook 5 s
 * (hooks/hooks.json) and lets the call run when it has no answer by then.
 */
export const CHECK_DEADLINE_S = 3.5;

export interface PastGateOptions {
  /** The hook script's folder, the plugin's `hooks/scripts` (its root and the renewal's script are found from it). */
  scriptDir: string;
  paths: CursorPaths;
  /** One stderr line for the hook log. */
  log: (message: string) => void;
  /** The gate found the token due for renewal: it starts in the background. */
  renewDue?: boolean;
  /** Run as the organization's gate: no code cache from the person's folder, no plugin root (no renewal, no plugin command named). */
  org?: boolean;
}

/** The answer to a call the gate read, when it did not answer `{}` by itself. */
export async function answerPastGate(raw: Record<string, unknown>, gate: GateCheck, o: PastGateOptions): Promise<object> {
  if (o.renewDue) startRenewal({ paths: o.paths, script: resolve(o.scriptDir, '../..', 'hooks/scripts/session-start.cjs'), env: process.env, now: Date.now() });
  if (gate.kind === 'neutral') {
    if (gate.record) await recordRun(o.paths.hookRuns, raw, 'neutral', null);
    return {};
  }
  if (gate.kind === 'deny' || gate.kind === 'ask') {
    const g = { paths: o.paths, now: Date.now(), plugin: __PLUGIN_VERSION__, log: o.log };
    const answer = gate.kind === 'deny' ? denyFromGate(raw, gate, g) : askFromGate(raw, gate, g);
    if (answer) return answer;
  }
  return fullCheck(raw, gate, o);
}

/** Input the hook could not read whole, or not as one JSON object: what could be seen of it decides, by the full check. */
export async function answerUnreadable(input: CallInput, o: PastGateOptions): Promise<object> {
  const front = classifyCallInput(input);
  if (front.kind === 'neutral') return (front.log && o.log(front.log), {});
  return fullCheck(front.raw, { kind: 'call' }, o);
}

async function fullCheck(raw: Record<string, unknown>, gate: GateCheck, o: PastGateOptions): Promise<object> {
  if (!o.org) {
    const { useChunkCache } = await import('../../../platform/chunkLoader.js');
    try { useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ }); } catch { /* no usable Cursor dir: no cache */ }
  }
  const [{ runPreMcp }, { journalAnswer }] = await Promise.all([import('../run.js'), import('../journal.js')]);
  let unknownForm: string | null = null;
  const answer = runPreMcp(raw, {
    pluginRoot: o.org ? undefined : resolve(o.scriptDir, '../..'), log: o.log, onUnknownForm: (what) => { unknownForm = what; },
    gate: gate.kind === 'stale' ? { stamps: gate.stamps, plugin: __PLUGIN_VERSION__ } : undefined,
    known: gate.kind === 'call' || gate.kind === 'deny' ? gate.known : undefined,
    deadline: CHECK_DEADLINE_S,
  });
  await recordRun(o.paths.hookRuns, raw, answer.permission ?? 'neutral', unknownForm);
  journalAnswer(raw, answer, { env: process.env, now: Date.now(), log: o.log });
  return answer;
}

/** The heartbeat diagnose-local reads (recorded for the calls that reach the check, so other servers' calls stay cheap). */
async function recordRun(path: string, input: Record<string, unknown>, outcome: string, unknownForm: string | null): Promise<void> {
  const { recordHookRun } = await import('../../../agentstack/plugin/hookRuns.js');
  recordHookRun(path, 'pre-mcp', { now: Date.now(), input, pluginVersion: __PLUGIN_VERSION__, outcome, unknownForm });
}
