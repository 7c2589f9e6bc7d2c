/**
 * The activity journal's record of a pre-MCP answer: a call the hook answered `deny` or `ask`, with its actions and
 * the kinds of its reasons. Pure; written by the full check (journal.ts) and by the gate's deny (gate/deny.ts).
 */
import { serverShown } from '../../agentstack/journal/identify.js';
import { preRecord, type PreRecord } from '../../agentstack/journal/record.js';
import { callIdentity } from '../../agentstack/server/callIdentity.js';
import type { PreMcpAnswer } from './answer.js';
import { unreadableReason } from './front.js';
import { reasonsOf } from './reason.js';

/** The record of `answer`, or null when there is none to keep (a call let through: the after hook records it). */
export function answerRecord(raw: Record<string, unknown> | null, answer: PreMcpAnswer, now: number): PreRecord | null {
  if (!answer.permission || !raw) return null;
  return preRecord({
    now,
    server: serverShown(callIdentity(raw)),
    conversationId: raw.conversation_id,
    generationId: raw.generation_id,
    toolInput: unreadableReason(raw) === null ? raw.tool_input : null,
    decision: answer.permission,
    reasons: reasonsOf(answer),
  });
}
