import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { glance, readCallInput } from '../commands/preMcp/front.js';

const NAME = 'pre-mcp-cap-check';

// Runs before every MCP call of every server, so this first stage only reads the input and answers every call that
// plainly is not AgentStack's: no field that names it mentions AgentStack. Every byte of this file is parsed before
// every call, so the rest (classifying the call, the check, the command line) are sibling chunks loaded plain
// (build/bundles.mjs). Set once the call may be AgentStack's: a failure after that answers `ask`, never `{}`.
let executeCall = false;

async function main(): Promise<object> {
  // Cursor runs the hook without arguments; the argument parser is loaded only when there are some.
  if (process.argv.length > 2) (await import('../commands/preMcp/usage.js')).parsePreMcpArguments();
  // Every later stage does its file work synchronously: the stdin read is the thread pool's only work.
  const input = await readCallInput({ read: (o) => readStdinFast({ ...o, onePoolThread: true }) });
  const plain = glance(input);
  if (plain) return (plain.log && logHookFast(NAME, plain.log), {});
  executeCall = true;
  const { checkCallInput } = await import('../commands/preMcp/check.js');
  return checkCallInput(input, { scriptDir: __dirname, log: (m) => logHookFast(NAME, m) });
}

main()
  .then(exitHook)
  .catch((error: unknown) => {
    const name = (error as Error)?.name ?? 'error';
    if (!executeCall) return (logHookFast(NAME, `unexpected failure (${name}); answering neutral`), exitHook({}));
    // A call that may be AgentStack's the check could not finish: the person decides, as for a call the hook could not read.
    logHookFast(NAME, `unexpected failure (${name}) checking an execute call; answering ask`);
    exitHook({
      permission: 'ask',
      user_message: `AgentStack's pre-call check failed (${name}), so this call's actions were not checked. Allow only if you expect this call; run /agentstack-diagnose if this repeats.`,
      agent_message: 'The AgentStack pre-call check failed internally, so this call was not checked; the person was asked to approve it.',
    });
  });
