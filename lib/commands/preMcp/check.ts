/**
 * The pre-MCP hook's second stage: a call that may be AgentStack's, answered `{}` from the compiled gate when it holds
 * and every step names a neutral action (gate/gate.ts). Everything else (the gate's deny or ask, a heartbeat to write,
 * a renewal to start, the full check, input that could not be read whole) is gate/past.ts, in the deny chunk. The
 * hook's first stage, which every MCP call of every server runs, only reads the input and answers the calls that
 * plainly are not AgentStack's (front.ts), and loads this stage (platform/plainChunk.ts) for the rest
 * (build/bundles.mjs): each stage parses only what its calls need.
 */
import { cursorPaths } from '../../agentstack/server/paths.js';
import { checkGate } from './gate/gate.js';
import { classifyRawInput, type CallInput } from './front.js';
import { orgGateInPlace, runsAsOrgGate } from '../../agentstack/plugin/orgGate.js';

export interface CheckCallOptions {
  /** The hook script's folder, the plugin's `hooks/scripts` (its root and the renewal's script are found from it). */
  scriptDir: string;
  /** One stderr line for the hook log. */
  log: (message: string) => void;
}

const pastGate = () => import('./gate/past.js');

/** The answer to an input the first stage could not answer alone: `{}`, `deny` or `ask`. */
export async function checkCallInput(input: CallInput, options: CheckCallOptions): Promise<object> {
  // One gate per call: the organization's copy checks (and journals) AgentStack's calls where it is in place, and
  // reads no compiled gate or code cache (files the person can write); the plugin's own hook then leaves them to it.
  const org = runsAsOrgGate(options.scriptDir);
  if (!org && orgGateInPlace()) return {};
  const o = { scriptDir: options.scriptDir, paths: cursorPaths(process.env), log: options.log, org };
  const raw = input.stdin.problem ? null : input.raw;
  if (raw === null) return (await pastGate()).answerUnreadable(input, o);
  if (classifyRawInput(raw).kind === 'neutral') return {};
  if (org) return (await pastGate()).answerPastGate(raw, { kind: 'call' }, o);
  let renewDue = false;
  const gate = checkGate(raw, { paths: o.paths, env: process.env, now: Date.now(), plugin: __PLUGIN_VERSION__, renew: () => { renewDue = true; } });
  if (gate.kind === 'neutral' && !gate.record && !renewDue) return {};
  return (await pastGate()).answerPastGate(raw, gate, { ...o, renewDue });
}
