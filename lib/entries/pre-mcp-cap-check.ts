import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHook, logHook } from '../platform/hookIo.js';
import { readPreMcpInput } from '../commands/preMcp/front.js';

const NAME = 'pre-mcp-cap-check';
const USAGE = `Usage: node pre-mcp-cap-check.mjs < hook-input.json

Cursor beforeMCPExecution hook: checks agentstack.execute calls against the capability snapshot and
answers {"permission": "deny" | "ask", ...} when a call cannot work or uses an action you have not
approved yet. Every other call gets {} (Cursor's own approval rules apply; this hook never answers "allow").
Always exits 0.

Options:
  -h, --help    show this help`;

async function main(): Promise<object> {
  // Cursor runs the hook without arguments; the argument parser is loaded only when there are some.
  if (process.argv.length > 2) {
    const { parseCommandLine } = await import('../platform/cli.js');
    parseCommandLine({ name: NAME, usage: USAGE, options: {}, allowPositionals: true });
  }
  const front = await readPreMcpInput();
  if (front.kind === 'neutral') {
    if (front.log) logHook(NAME, front.log);
    return {};
  }
  const { runPreMcp } = await import('../commands/preMcp/run.js');
  // The bundle lives in <root>/hooks/scripts/.
  const pluginRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  return runPreMcp(front.raw, { pluginRoot, log: (m) => logHook(NAME, m) });
}

main()
  .then(answerHook)
  .catch((error: unknown) => {
    logHook(NAME, `unexpected failure (${(error as Error)?.name ?? 'error'}); answering neutral`);
    answerHook({});
  });
