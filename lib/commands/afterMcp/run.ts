/**
 * The afterMCPExecution hook's I/O for a call that may be AgentStack's execute call: the settings (is the journal on),
 * then one record appended. Nothing
 * here reads or keeps a parameter value or the result's data (agentstack/journal/record.ts copies only ids, actions,
 * outcomes and codes).
 */
import { appendIfOn } from '../../agentstack/journal/hookAppend.js';
import { serverShown } from '../../agentstack/journal/identify.js';
import { afterRecord } from '../../agentstack/journal/record.js';
import { callIdentity } from '../../agentstack/server/callIdentity.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import { journalOn } from '../../agentstack/settings/keys.js';

export interface RecordCallOptions {
  env: NodeJS.ProcessEnv;
  now: number;
  log: (message: string) => void;
}

export interface CallToRecord {
  raw: Record<string, unknown>;
  unreadable: string | null;
}

export function recordAfterMcp(call: CallToRecord, options: RecordCallOptions): 'recorded' | 'off' | 'failed' {
  const { raw } = call;
  const settings = applySettings(options.env);
  if (!journalOn(settings.env)) return 'off';
  const identity = callIdentity(raw);
  const record = afterRecord({
    now: options.now,
    server: serverShown(identity),
    conversationId: raw.conversation_id,
    generationId: raw.generation_id,
    toolInput: raw.tool_input,
    resultJson: raw.result_json ?? raw.tool_output,
    duration: raw.duration ?? raw.duration_ms,
    unreadable: call.unreadable,
  });
  return appendIfOn(record, { env: settings.env, log: options.log });
}
