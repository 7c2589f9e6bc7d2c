/**
 * The pre-MCP hook's entry in the activity journal: a call it answered `deny` or `ask`, with its actions and the
 * kinds of its reasons. Only then: a call it lets through writes nothing (the after hook records how it went).
 */
import { appendIfOn } from '../../agentstack/journal/file.js';
import { serverShown } from '../../agentstack/journal/identify.js';
import { preRecord } from '../../agentstack/journal/record.js';
import { callIdentity } from '../../agentstack/server/callIdentity.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import type { PreMcpAnswer } from './decide.js';
import { unreadableReason } from './front.js';
import { reasonsOf } from './reason.js';

export interface JournalAnswerOptions {
  env: NodeJS.ProcessEnv;
  now: number;
  log: (message: string) => void;
}

/** Appends the record of a `deny` or `ask` (nothing for any other answer, or when the journal is off). Never throws. */
export function journalAnswer(raw: Record<string, unknown> | null, answer: PreMcpAnswer, options: JournalAnswerOptions): 'recorded' | 'off' | 'failed' | 'none' {
  if (!answer.permission || !raw) return 'none';
  try {
    const settings = applySettings(options.env);
    const record = preRecord({
      now: options.now,
      server: serverShown(callIdentity(raw)),
      conversationId: raw.conversation_id,
      generationId: raw.generation_id,
      toolInput: unreadableReason(raw) === null ? raw.tool_input : null,
      decision: answer.permission,
      reasons: reasonsOf(answer),
    });
    return appendIfOn(record, { env: settings.env, log: options.log });
  } catch (error) {
    options.log(`the activity journal was not written (${(error as Error).name})`);
    return 'failed';
  }
}
