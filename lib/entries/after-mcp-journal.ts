import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { readAfterMcpInput } from '../commands/afterMcp/front.js';

const NAME = 'after-mcp-journal';

// Runs after every MCP call: this first stage ends every call that is not AgentStack's execute call by itself; the
// record of those, and the command line, are a plain sibling chunk (commands/afterMcp/full.ts), which loads the
// journal's code through the code cache (see build/bundles.mjs).
const loadFull = () => import('../commands/afterMcp/full.js');

async function main(): Promise<void> {
  // Cursor runs the hook without arguments; the argument parser is loaded only when there are some.
  if (process.argv.length > 2) await (await loadFull()).parseAfterMcpArguments();
  const front = await readAfterMcpInput({ read: readStdinFast });
  if (front.kind === 'skip') {
    if (front.log) logHookFast(NAME, front.log);
    return;
  }
  await (await loadFull()).recordCall(front, (m) => logHookFast(NAME, m), __dirname);
}

main()
  .then(() => exitHook({}))
  .catch((error: unknown) => {
    logHookFast(NAME, `unexpected failure (${(error as Error)?.name ?? 'error'}); nothing recorded`);
    exitHook({});
  });
