/**
 * The deny of an execute call naming actions the capability snapshot lacks, given from the gate (gate.ts) without the
 * execute chunk: the same answer as the full check's (unknownAction.ts, on the gate's list of every action), the same
 * journal record, log line and heartbeat. Reached only when the gate holds and says such a call is denied for that
 * alone. The ask of the person's rules about a call nothing else has an opinion on is given the same way.
 */
import { appendLogged } from '../../../agentstack/journal/file.js';
import { recordHookRun } from '../../../agentstack/plugin/hookRuns.js';
import type { CursorPaths } from '../../../agentstack/server/paths.js';
import { BeforeMcpInputSchema } from '../../../schemas/hooks.js';
import { answerRecord } from '../answerRecord.js';
import { shownSafely, type PreMcpAnswer } from '../answer.js';
import { listIndex, unpackNameIndex } from '../suggest.js';
import { unknownActionAnswer } from '../unknownAction.js';
import { rulesAskAnswer, type RuleAsk } from './ask.js';

export interface GateDenyOptions {
  paths: CursorPaths;
  now: number;
  /** The plugin's version, for the heartbeat. */
  plugin: string;
  log: (message: string) => void;
}

/**
 * The deny for `unknown` (gate.ts's `deny` check: each once, in the call's order; `known`: every action, each between
 * newlines), or null when the input is not one the full check reads as a hook input (it then answers instead).
 */
export function denyFromGate(raw: Record<string, unknown>, check: { unknown: readonly string[]; known: string; index: string; journal: boolean }, o: GateDenyOptions): PreMcpAnswer | null {
  if (!BeforeMcpInputSchema.safeParse(raw).success) return null;
  const answer = shownSafely(unknownActionAnswer(check.unknown, listIndex(check.known, unpackNameIndex(check.index)), 0));
  o.log(`${answer.permission}: ${answer.agent_message ?? ''}`);
  if (check.journal) {
    const record = answerRecord(raw, answer, o.now);
    if (record) appendLogged(record, { path: o.paths.journal, log: o.log });
  }
  recordHookRun(o.paths.hookRuns, 'pre-mcp', { now: o.now, input: raw, pluginVersion: o.plugin, outcome: 'deny', unknownForm: null });
  return answer;
}

/**
 * The ask of the person's rules about `asks` (gate.ts's `ask` check), with the full check's answer (ask.ts), journal
 * record, log line and heartbeat; null when the input is not one the full check reads as a hook input.
 */
export function askFromGate(raw: Record<string, unknown>, check: { asks: readonly RuleAsk[]; journal: boolean }, o: GateDenyOptions): PreMcpAnswer | null {
  if (!BeforeMcpInputSchema.safeParse(raw).success) return null;
  const answer = shownSafely(rulesAskAnswer(check.asks));
  o.log(`${answer.permission}: ${answer.agent_message ?? ''}`);
  if (check.journal) {
    const record = answerRecord(raw, answer, o.now);
    if (record) appendLogged(record, { path: o.paths.journal, log: o.log });
  }
  recordHookRun(o.paths.hookRuns, 'pre-mcp', { now: o.now, input: raw, pluginVersion: o.plugin, outcome: 'ask', unknownForm: null });
  return answer;
}
