/**
 * The activity journal's records, pure: what the MCP hooks keep of an AgentStack execute call. An `after` record
 * holds the time, the server, each step's id and action and its outcome (`ok`, or the error code the server gave),
 * whether the call was an error, and the duration and conversation/generation ids when Cursor gives them; a `pre`
 * record, the pre-MCP hook's `deny` or `ask` with the kinds of its reasons. Never a parameter, never result data,
 * never a token: the builders copy only those fields, each one checked and clipped to printable ASCII.
 */
import { isObject } from '../../platform/text/isObject.js';
import { isoTime } from '../../platform/isoTime.js';

export const JOURNAL_VERSION = 1;
/** The server runs at most 50 steps a call; a record names at most that many. */
export const MAX_JOURNAL_STEPS = 50;
/** One record is one write of at most this many bytes (steps past it are counted, not named). */
export const MAX_RECORD_BYTES = 8 * 1024;

/** What became of a step: `ok`, the server's error code, `skipped` (an earlier step failed) or `unknown`. */
export type StepOutcome = string;

export interface JournalStep {
  id: string;
  action: string;
  /** After the call only. */
  outcome?: StepOutcome;
}

interface RecordBase {
  v: typeof JOURNAL_VERSION;
  /** ISO time the hook ran. */
  at: string;
  /** The server as Cursor named it (`user-agentstack`, `plugin-agentstack-agentstack`, ...), else its url's host. */
  server: string;
  steps: JournalStep[];
  /** Steps the call had beyond those named. */
  more_steps?: number;
  conversation_id?: string;
  generation_id?: string;
}

export interface AfterRecord extends RecordBase {
  hook: 'after';
  error: boolean;
  /** The call's own error code when the server gave one for the whole call (`invalid_arguments`). */
  code?: string;
  duration_ms?: number;
  /** Why the hook could not read the call's input whole (its size, its time): its steps are then unknown. */
  unreadable?: string;
}

export interface PreRecord extends RecordBase {
  hook: 'pre';
  decision: 'deny' | 'ask';
  /** The kinds of reason (`missing_capability`, `rule:deny-actions`, `credential`...). */
  reasons: string[];
}

export type JournalRecord = AfterRecord | PreRecord;

const MAX_ID = 80;
const MAX_ACTION = 120;
const MAX_META = 120;
const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Printable ASCII only, clipped; null when nothing printable is left. */
export function printable(value: unknown, max: number): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value).replace(/[^\x20-\x7e]/g, '').trim().slice(0, max);
  return text || null;
}

/** An error code as the server gives one (`missing_capability`); anything else is not copied. */
export function errorCode(value: unknown): string | null {
  return typeof value === 'string' && CODE.test(value) ? value : null;
}

/** A JSON string's value (one level of double encoding tolerated), or the value itself; undefined when unreadable. */
function jsonOf(raw: unknown): unknown {
  let value = raw;
  for (let depth = 0; typeof value === 'string' && depth < 2; depth++) {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value;
}

/** The steps an execute call's `tool_input` names (id and action only), or null when it names none readably. */
export function stepsOfInput(toolInput: unknown): Array<{ id: string; action: string }> | null {
  const value = jsonOf(toolInput);
  if (!isObject(value) || !Array.isArray(value.steps)) return null;
  return value.steps.map((step) => ({
    id: (isObject(step) && printable(step.id, MAX_ID)) || '?',
    action: (isObject(step) && printable(step.action, MAX_ACTION)) || '?',
  }));
}

interface ResultStep {
  id: string | null;
  action: string | null;
  outcome: StepOutcome;
}

export interface CallResult {
  error: boolean;
  code: string | null;
  /** Each step the server reported, or null when the result says nothing readable of its steps. */
  steps: ResultStep[] | null;
}

/** The execute result's `{ok, results, error}`: `structuredContent`, else the JSON of its text content, else the value itself. */
function structuredOf(value: Record<string, unknown>): Record<string, unknown> | null {
  if (isObject(value.structuredContent)) return value.structuredContent;
  if (Array.isArray(value.results) || typeof value.ok === 'boolean') return value;
  if (!Array.isArray(value.content)) return null;
  for (const item of value.content) {
    if (!isObject(item) || typeof item.text !== 'string') continue;
    const parsed = jsonOf(item.text);
    if (isObject(parsed) && (Array.isArray(parsed.results) || typeof parsed.ok === 'boolean')) return parsed;
  }
  return null;
}

function outcomeOf(result: Record<string, unknown>): StepOutcome {
  if (result.ok === true) return 'ok';
  if (result.ok !== false) return 'unknown';
  return (isObject(result.error) && errorCode(result.error.code)) || 'error';
}

/** What `result_json` says of the call: whether it failed, with which code, and each step's outcome. */
export function readCallResult(resultJson: unknown): CallResult {
  const value = jsonOf(resultJson);
  if (!isObject(value)) return { error: false, code: null, steps: null };
  const structured = structuredOf(value);
  const steps = Array.isArray(structured?.results)
    ? structured.results.filter(isObject).map((r) => ({ id: printable(r.id, MAX_ID), action: printable(r.action, MAX_ACTION), outcome: outcomeOf(r) }))
    : null;
  const callError = structured && isObject(structured.error) ? errorCode(structured.error.code) : null;
  const failed = value.isError === true || structured?.ok === false || value.error !== undefined || (steps ?? []).some((s) => s.outcome !== 'ok');
  return { error: failed, code: callError, steps };
}

/** The steps the call named, each with what the server said of it: matched by id, else by position. */
export function stepsWithOutcomes(asked: Array<{ id: string; action: string }> | null, result: CallResult): JournalStep[] {
  const reported = result.steps;
  if (asked === null) return (reported ?? []).map((r) => ({ id: r.id ?? '?', action: r.action ?? '?', outcome: r.outcome }));
  const used = new Set<number>();
  return asked.map((step, i) => {
    let at = reported ? reported.findIndex((r, j) => !used.has(j) && r.id === step.id) : -1;
    if (at < 0 && reported?.[i] && reported[i]!.id === null && !used.has(i)) at = i;
    if (at >= 0) used.add(at);
    const outcome = at >= 0 ? reported![at]!.outcome : reported ? 'skipped' : (result.code ?? 'unknown');
    return { ...step, outcome };
  });
}

export interface CallMeta {
  now: number;
  server: string;
  conversationId?: unknown;
  generationId?: unknown;
}

/** The fields both kinds share, `hook` third (the order a person reading the file meets them in). */
function base<H extends JournalRecord['hook']>(hook: H, meta: CallMeta, steps: JournalStep[]): RecordBase & { hook: H } {
  const record: RecordBase & { hook: H } = { v: JOURNAL_VERSION, at: isoTime(meta.now), hook, server: printable(meta.server, MAX_META) ?? 'agentstack', steps: steps.slice(0, MAX_JOURNAL_STEPS) };
  if (steps.length > MAX_JOURNAL_STEPS) record.more_steps = steps.length - MAX_JOURNAL_STEPS;
  const conversation = printable(meta.conversationId, MAX_META);
  const generation = printable(meta.generationId, MAX_META);
  if (conversation) record.conversation_id = conversation;
  if (generation) record.generation_id = generation;
  return record;
}

export interface AfterCall extends CallMeta {
  toolInput: unknown;
  resultJson: unknown;
  duration?: unknown;
  unreadable?: string | null;
}

/** The record of a call that ran (the afterMCPExecution hook). */
export function afterRecord(call: AfterCall): AfterRecord {
  const result = readCallResult(call.resultJson);
  const steps = stepsWithOutcomes(stepsOfInput(call.toolInput), result);
  const record: AfterRecord = { ...base('after', call, steps), error: result.error };
  if (result.code) record.code = result.code;
  const ms = typeof call.duration === 'number' ? call.duration : typeof call.duration === 'string' ? Number(call.duration) : NaN;
  if (Number.isFinite(ms) && ms >= 0) record.duration_ms = Math.round(ms);
  const why = printable(call.unreadable, 40);
  if (why) record.unreadable = why;
  return record;
}

export interface PreCall extends CallMeta {
  toolInput: unknown;
  decision: 'deny' | 'ask';
  reasons: readonly string[];
}

/** The record of a call the pre-MCP hook denied or asked about. */
export function preRecord(call: PreCall): PreRecord {
  const steps = stepsOfInput(call.toolInput) ?? [];
  const reasons = [...new Set(call.reasons.map((r) => printable(r, 40)).filter((r): r is string => r !== null))];
  return { ...base('pre', call, steps), decision: call.decision, reasons: reasons.length ? reasons : ['unknown'] };
}

/** One JSON line of at most MAX_RECORD_BYTES (steps past it are counted in `more_steps`), newline included. */
export function recordLine(record: JournalRecord): string {
  let out = record;
  let line = JSON.stringify(out);
  while (Buffer.byteLength(line) >= MAX_RECORD_BYTES && out.steps.length > 0) {
    const keep = Math.floor(out.steps.length / 2);
    out = { ...out, steps: out.steps.slice(0, keep), more_steps: (out.more_steps ?? 0) + out.steps.length - keep };
    line = JSON.stringify(out);
  }
  return `${line}\n`;
}

function stepOf(value: unknown): JournalStep | null {
  if (!isObject(value)) return null;
  const id = printable(value.id, MAX_ID);
  const action = printable(value.action, MAX_ACTION);
  if (id === null || action === null) return null;
  const step: JournalStep = { id, action };
  const outcome = printable(value.outcome, 64);
  if (outcome !== null) step.outcome = outcome;
  return step;
}

/** One line of the journal as read back: a record, or null when it is not one (each field checked again). */
export function parseRecordLine(line: string): JournalRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(value) || value.v !== JOURNAL_VERSION || !Array.isArray(value.steps)) return null;
  const at = printable(value.at, 40);
  const server = printable(value.server, MAX_META);
  if (at === null || !Number.isFinite(Date.parse(at)) || server === null) return null;
  const steps = value.steps.map(stepOf);
  if (steps.some((s) => s === null)) return null;
  const meta = { now: Date.parse(at), server, conversationId: value.conversation_id, generationId: value.generation_id };
  const more = typeof value.more_steps === 'number' && value.more_steps > 0 ? Math.floor(value.more_steps) : 0;
  const withMore = <T extends RecordBase>(record: T): T => (more ? { ...record, more_steps: (record.more_steps ?? 0) + more } : record);
  if (value.hook === 'after' && typeof value.error === 'boolean') {
    const record: AfterRecord = withMore({ ...base('after', meta, steps as JournalStep[]), error: value.error });
    const code = errorCode(value.code);
    if (code) record.code = code;
    if (typeof value.duration_ms === 'number' && Number.isFinite(value.duration_ms) && value.duration_ms >= 0) record.duration_ms = Math.round(value.duration_ms);
    const why = printable(value.unreadable, 40);
    if (why) record.unreadable = why;
    return record;
  }
  if (value.hook === 'pre' && (value.decision === 'deny' || value.decision === 'ask') && Array.isArray(value.reasons)) {
    const reasons = value.reasons.map((r) => printable(r, 40)).filter((r): r is string => r !== null);
    return withMore<PreRecord>({ ...base('pre', meta, steps as JournalStep[]), decision: value.decision, reasons: reasons.length ? reasons : ['unknown'] });
  }
  return null;
}
