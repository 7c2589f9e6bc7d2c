import { exitHook, logHookFast, readStdinFast } from '../platform/fastHookIo.js';
import { readPreMcpInput } from '../commands/preMcp/front.js';

const NAME = 'pre-mcp-cap-check';
const USAGE = `Usage: node pre-mcp-cap-check.cjs < hook-input.json

Cursor beforeMCPExecution hook: checks agentstack.execute calls against the capability snapshot and
answers {"permission": "deny" | "ask", ...} when a call cannot work or uses an action you have not
approved yet. Every other call gets {} (Cursor's own approval rules apply; this hook never answers "allow").
Always exits 0.

Options:
  -h, --help    show this help`;

// Runs before every MCP call of every server, so this first stage only reads the input and answers every call that is
// not AgentStack's; the check of the rest is a sibling chunk loaded plain (build/bundles.mjs), so the code every
// call parses stays a few kilobytes. Set once the call needs the check: a failure after that answers `ask`, never `{}`.
let executeCall = false;

async function main(): Promise<object> {
  // Cursor runs the hook without arguments; the argument parser is loaded only when there are some.
  if (process.argv.length > 2) {
    const { parseCommandLine } = await import('../platform/cli.js');
    parseCommandLine({ name: NAME, usage: USAGE, options: {}, allowPositionals: true });
  }
  // Every later stage does its file work synchronously: the stdin read is the thread pool's only work.
  const front = await readPreMcpInput({ read: (o) => readStdinFast({ ...o, onePoolThread: true }) });
  if (front.kind === 'neutral') return (front.log && logHookFast(NAME, front.log), {});
  executeCall = true;
  const { checkCall } = await import('../commands/preMcp/check.js');
  return checkCall(front.raw, { scriptDir: __dirname, log: (m) => logHookFast(NAME, m) });
}

main()
  .then(exitHook)
  .catch((error: unknown) => {
    const name = (error as Error)?.name ?? 'error';
    if (!executeCall) return (logHookFast(NAME, `unexpected failure (${name}); answering neutral`), exitHook({}));
    // An execute call the check could not finish: the person decides, as for a call the hook could not read.
    logHookFast(NAME, `unexpected failure (${name}) checking an execute call; answering ask`);
    exitHook({
      permission: 'ask',
      user_message: `AgentStack's pre-call check failed (${name}), so this call's actions were not checked. Allow only if you expect this call; run /agentstack-diagnose if this repeats.`,
      agent_message: 'The AgentStack pre-call check failed internally, so this call was not checked; the person was asked to approve it.',
    });
  });
