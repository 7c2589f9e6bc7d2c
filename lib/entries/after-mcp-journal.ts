import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { readAfterMcpInput } from '../commands/afterMcp/front.js';

const NAME = 'after-mcp-journal';
const USAGE = `Usage: node after-mcp-journal.cjs < hook-input.json

Cursor afterMCPExecution hook: appends one record of each agentstack.execute call to the activity
journal (~/.cursor/agentstack-journal.jsonl): its steps' actions and outcomes, never a parameter or
the result's data. Every other call is left alone. Off with: config.mjs set journal off.
Always answers {} and exits 0 (Cursor does not use this hook's answer).

Options:
  -h, --help    show this help`;

// Runs after every MCP call: this first stage ends every call that is not AgentStack's execute call by itself; the
// journal's code is a sibling chunk loaded only for those (see build/bundles.mjs).
async function main(): Promise<void> {
  // Cursor runs the hook without arguments; the argument parser is loaded only when there are some.
  if (process.argv.length > 2) {
    const { parseCommandLine } = await import('../platform/cli.js');
    parseCommandLine({ name: NAME, usage: USAGE, options: {}, allowPositionals: true });
  }
  const front = await readAfterMcpInput({ read: readStdinFast });
  if (front.kind === 'skip') {
    if (front.log) logHookFast(NAME, front.log);
    return;
  }
  // Imported here, so a call to another server never loads what they need (node:vm, node:os).
  const [{ useChunkCache }, { chunkCacheRoot }] = await Promise.all([import('../platform/chunkLoader.js'), import('../agentstack/server/paths.js')]);
  try {
    useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ });
  } catch { /* no usable Cursor dir: no cache */ }
  const { recordAfterMcp } = await import('../commands/afterMcp/run.js');
  recordAfterMcp(front, { env: process.env, now: Date.now(), log: (m) => logHookFast(NAME, m) });
}

main()
  .then(() => exitHook({}))
  .catch((error: unknown) => {
    logHookFast(NAME, `unexpected failure (${(error as Error)?.name ?? 'error'}); nothing recorded`);
    exitHook({});
  });
