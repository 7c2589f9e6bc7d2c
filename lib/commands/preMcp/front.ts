/**
 * The part of the beforeMCPExecution hook that runs for every MCP call: read stdin (bounded), and answer every call
 * that is not an `execute` call at once. It imports no schema library, so most calls never evaluate zod; the
 * execute path (`run.ts`) is reached through `await import()`, which esbuild evaluates lazily.
 */
import { parseHookJson, readStdinBounded, type ReadStdinOptions, type StdinResult } from '../../platform/hookIo.js';
import { isExecuteCall } from './identify.js';

export type FrontResult =
  | { kind: 'neutral'; log?: string }
  | { kind: 'execute'; raw: Record<string, unknown> };

export function classifyRawInput(raw: Record<string, unknown> | null): FrontResult {
  if (!raw || typeof raw.tool_name !== 'string') {
    return { kind: 'neutral', log: 'stdin is not a beforeMCPExecution JSON object; answering neutral' };
  }
  return isExecuteCall({ tool_name: raw.tool_name }) ? { kind: 'execute', raw } : { kind: 'neutral' };
}

/** `read`: how stdin is read (the hook passes a reader that avoids creating process.stdin). */
export async function readPreMcpInput(options: ReadStdinOptions & { read?: (o: ReadStdinOptions) => Promise<StdinResult> } = {}): Promise<FrontResult> {
  const { read = readStdinBounded, ...rest } = options;
  const stdin = await read({ timeoutMs: 2_000, ...rest });
  if (stdin.problem) {
    const why = stdin.problem === 'too_large' ? 'is larger than the cap' : stdin.problem === 'timeout' ? 'did not close in time' : 'failed';
    return { kind: 'neutral', log: `stdin ${why}; answering neutral` };
  }
  return classifyRawInput(parseHookJson(stdin.text));
}
