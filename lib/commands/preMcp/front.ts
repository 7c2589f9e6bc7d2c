/**
 * The part of the beforeMCPExecution hook that runs for every MCP call: read stdin (bounded), and answer every call
 * that is plainly not AgentStack's at once (`glance`, in the first stage); the rest is classified (`classifyCallInput`)
 * and checked by the next stage. No schema library, no URL parsing: most calls never evaluate either.
 */
import { parseHookJson, readStdinBounded, type ReadStdinOptions, type StdinResult } from '../../platform/hookIo.js';
import { callIdentity, firstLook, mentionsAgentStack } from '../../agentstack/server/callIdentity.js';
import { createTopLevelScanner, type TopLevelScanner } from '../../platform/text/hookInputScan.js';

/**
 * Marks a raw input built from what could be seen of a call the hook could not read whole; its value says why. A
 * symbol, so no parsed input can carry it; a registered one, because the hook's first stage and its execute chunk
 * each carry their own copy of this module and must agree on it.
 */
export const UNREADABLE: unique symbol = Symbol.for('agentstack.pre-mcp.unreadable') as typeof UNREADABLE;

/** Why the call could not be read, when `raw` was built by the scan. */
export function unreadableReason(raw: Record<string, unknown> | null): string | null {
  const why = raw ? (raw as { [UNREADABLE]?: unknown })[UNREADABLE] : undefined;
  return typeof why === 'string' ? why : null;
}

export type FrontResult =
  | { kind: 'neutral'; log?: string }
  /** A call that needs the full check: one that may be AgentStack's, or one the hook could not read (raw[UNREADABLE] set). */
  | { kind: 'execute'; raw: Record<string, unknown> };

export function classifyRawInput(raw: Record<string, unknown> | null): FrontResult {
  if (!raw || typeof raw.tool_name !== 'string') {
    return { kind: 'neutral', log: 'stdin is not a beforeMCPExecution JSON object; answering neutral' };
  }
  return firstLook(callIdentity(raw)) === 'check' ? { kind: 'execute', raw } : { kind: 'neutral' };
}

/** The hook's input as read: the text (or why it could not be read whole), parsed, and what the scan saw of it. */
export interface CallInput {
  stdin: StdinResult;
  /** The text as a JSON object; null when it is not one, or could not be read whole. */
  raw: Record<string, unknown> | null;
  /** Created only when the input cannot be read whole (the scan then sees every byte that arrived). */
  scanner?: TopLevelScanner;
}

export type ReadCallOptions = ReadStdinOptions & { read?: (o: ReadStdinOptions) => Promise<StdinResult> };

/** Reads stdin, bounded (`read`: the hook passes a reader that avoids creating process.stdin). */
export async function readCallInput(options: ReadCallOptions = {}): Promise<CallInput> {
  const { read = readStdinBounded, ...rest } = options;
  const input: { scanner?: TopLevelScanner } = {};
  const stdin = await read({ timeoutMs: 2_000, ...rest, spill: (chunk) => (input.scanner ??= createTopLevelScanner()).feed(chunk) });
  return { stdin, raw: stdin.problem ? null : parseHookJson(stdin.text), scanner: input.scanner };
}

type Neutral = Extract<FrontResult, { kind: 'neutral' }>;

const NOT_A_CALL: Neutral = { kind: 'neutral', log: 'stdin is not a beforeMCPExecution JSON object; answering neutral' };

/**
 * What the first stage answers alone: a call none of whose naming fields mentions AgentStack, or input that is no
 * call at all, is neutral; null when the call needs `classifyCallInput` (the next stage's).
 */
export function glance(input: CallInput): Neutral | null {
  const { stdin, raw } = input;
  if (stdin.problem) return null;
  if (raw === null) return stdin.text.trim() === '' ? NOT_A_CALL : null;
  if (typeof raw.tool_name !== 'string') return NOT_A_CALL;
  return mentionsAgentStack(raw) ? null : { kind: 'neutral' };
}

/** Where the call goes next: neutral, or the full check. */
export function classifyCallInput(input: CallInput): FrontResult {
  const { stdin, raw, scanner } = input;
  if (stdin.problem) {
    const why = stdin.problem === 'too_large' ? 'is larger than the cap' : stdin.problem === 'timeout' ? 'did not close in time' : 'failed';
    const seen = scanner?.result() ?? {};
    // Only a call we can see is not AgentStack's is neutral; anything else goes to the full check, which answers
    // `ask` for an AgentStack call (or a call it cannot name) and `{}` for another server's.
    if (seen.tool_name !== undefined && firstLook(callIdentity(seen)) === 'neutral') return { kind: 'neutral', log: `stdin ${why}; not an AgentStack call, answering neutral` };
    return { kind: 'execute', raw: { ...seen, [UNREADABLE]: `its input ${why}` } };
  }
  return raw === null && stdin.text.trim() !== '' ? classifyUnparsed(stdin.text) : classifyRawInput(raw);
}

/** Reads and classifies the input in one step (the two stages' work, for callers that run both). */
export async function readPreMcpInput(options: ReadCallOptions = {}): Promise<FrontResult> {
  return classifyCallInput(await readCallInput(options));
}
/**
 * Input that is not one JSON object (a second object after the call, a call cut short): what the scan sees of it
 * decides. Nothing named: neutral; another server's call: neutral; anything else gets the full check's `ask`.
 */
function classifyUnparsed(text: string): FrontResult {
  const scanner = createTopLevelScanner();
  scanner.feed(Buffer.from(text));
  const seen = scanner.result();
  if (seen.tool_name === undefined && !scanner.unclear()) return classifyRawInput(null);
  if (seen.tool_name !== undefined && firstLook(callIdentity(seen)) === 'neutral') return { kind: 'neutral', log: 'stdin is not one JSON object; not an AgentStack call, answering neutral' };
  return { kind: 'execute', raw: { ...seen, [UNREADABLE]: 'its input is not one JSON object' } };
}
