/**
 * The part of the afterMCPExecution hook that runs after every MCP call of every server: read stdin (bounded) and
 * decide from it alone whether the call can be AgentStack's execute call. Every other call ends here, having read no
 * file; this stage imports no schema library.
 */
import { parseHookJson, readStdinBounded, type ReadStdinOptions, type StdinResult } from '../../platform/hookIo.js';
import { callIdentity } from '../../agentstack/server/callIdentity.js';
import { EXECUTE_TOOL_NAMES } from '../../agentstack/server/toolNames.js';
import { isJournaledCall } from '../../agentstack/journal/identify.js';
import { createTopLevelScanner, type TopLevelScanner } from '../../platform/text/hookInputScan.js';

/** The input carries the call's result: an AgentStack result may be up to 4 MiB, and more once encoded as a string. */
export const AFTER_STDIN_MAX_BYTES = 16 * 1024 * 1024;

export type AfterFront =
  | { kind: 'skip'; log?: string }
  /** A call to record. `unreadable`: why only its top-level names were seen. */
  | { kind: 'record'; raw: Record<string, unknown>; unreadable: string | null };

function look(raw: Record<string, unknown>, unreadable: string | null): AfterFront {
  return isJournaledCall(callIdentity(raw)) ? { kind: 'record', raw, unreadable } : { kind: 'skip' };
}

/** `read`: how stdin is read (the hook passes a reader that avoids creating process.stdin). */
export async function readAfterMcpInput(options: ReadStdinOptions & { read?: (o: ReadStdinOptions) => Promise<StdinResult> } = {}): Promise<AfterFront> {
  const { read = readStdinBounded, ...rest } = options;
  // Created only when the input cannot be read whole (the scan then sees every byte that arrived).
  let scanner: TopLevelScanner | undefined;
  const stdin = await read({ timeoutMs: 2_000, maxBytes: AFTER_STDIN_MAX_BYTES, ...rest, spill: (chunk) => (scanner ??= createTopLevelScanner()).feed(chunk) });
  if (stdin.problem) {
    const why = stdin.problem === 'too_large' ? 'too_large' : stdin.problem === 'timeout' ? 'timeout' : 'read_error';
    const seen = scanner?.result() ?? {};
    return seen.tool_name === undefined ? { kind: 'skip', log: `stdin could not be read whole (${why}); nothing recorded` } : look({ ...seen }, why);
  }
  // Every name of the execute tool appears in the input as written (JSON.stringify escapes no letter): an input that
  // holds none of them is not an execute call, and is not even parsed.
  if (!EXECUTE_TOOL_NAMES.some((name) => stdin.text.includes(name))) return { kind: 'skip' };
  const raw = parseHookJson(stdin.text);
  if (!raw || typeof raw.tool_name !== 'string') return { kind: 'skip', log: 'stdin is not an afterMCPExecution JSON object; nothing recorded' };
  return look(raw, null);
}
