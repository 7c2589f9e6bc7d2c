/**
 * The pre-MCP hook's entry in the activity journal: a call it answered `deny` or `ask` (answerRecord.ts). Only then:
 * a call it lets through writes nothing (the after hook records how it went).
 */
import { appendIfOn } from '../../agentstack/journal/hookAppend.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import type { PreMcpAnswer } from './answer.js';
import { answerRecord } from './answerRecord.js';

export interface JournalAnswerOptions {
  env: NodeJS.ProcessEnv;
  now: number;
  log: (message: string) => void;
}

/** Appends the record of a `deny` or `ask` (nothing for any other answer, or when the journal is off). Never throws. */
export function journalAnswer(raw: Record<string, unknown> | null, answer: PreMcpAnswer, options: JournalAnswerOptions): 'recorded' | 'off' | 'failed' | 'none' {
  try {
    const record = answerRecord(raw, answer, options.now);
    if (!record) return 'none';
    const settings = applySettings(options.env);
    return appendIfOn(record, { env: settings.env, log: options.log });
  } catch (error) {
    options.log(`the activity journal was not written (${(error as Error).name})`);
    return 'failed';
  }
}
