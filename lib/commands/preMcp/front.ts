/**
 * The part of the beforeMCPExecution hook that runs for every MCP call: read stdin (bounded), and answer every call
 * that is not an `execute` call at once. It imports no schema library, so most calls never evaluate zod; the
 * execute path (`run.ts`) is reached through `await import()`, which esbuild evaluates lazily.
 */
import { parseHookJson, readStdinBounded, type ReadStdinOptions, type StdinResult } from '../../platform/hookIo.js';
import { callIdentity, firstLook } from '../../agentstack/server/callIdentity.js';
import { createTopLevelScanner, type TopLevelScanner } from './topLevelScan.js';

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

/** `read`: how stdin is read (the hook passes a reader that avoids creating process.stdin). */
export async function readPreMcpInput(options: ReadStdinOptions & { read?: (o: ReadStdinOptions) => Promise<StdinResult> } = {}): Promise<FrontResult> {
  const { read = readStdinBounded, ...rest } = options;
  // Created only when the input cannot be read whole (the scan then sees every byte that arrived).
  let scanner: TopLevelScanner | undefined;
  const stdin = await read({ timeoutMs: 2_000, ...rest, spill: (chunk) => (scanner ??= createTopLevelScanner()).feed(chunk) });
  if (stdin.problem) {
    const why = stdin.problem === 'too_large' ? 'is larger than the cap' : stdin.problem === 'timeout' ? 'did not close in time' : 'failed';
    const seen = scanner?.result() ?? {};
    // Only a call we can see is not AgentStack's is neutral; anything else goes to the full check, which answers
    // `ask` for an AgentStack call (or a call it cannot name) and `{}` for another server's.
    if (seen.tool_name !== undefined && firstLook(callIdentity(seen)) === 'neutral') return { kind: 'neutral', log: `stdin ${why}; not an AgentStack call, answering neutral` };
    return { kind: 'execute', raw: { ...seen, [UNREADABLE]: `its input ${why}` } };
  }
  const raw = parseHookJson(stdin.text);
  return raw === null && stdin.text.trim() !== '' ? classifyUnparsed(stdin.text) : classifyRawInput(raw);
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
