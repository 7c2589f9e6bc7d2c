/** The pre-MCP hook's command line (Cursor runs it without arguments; this is loaded only when there are some). */
import { parseCommandLine } from '../../platform/cli.js';

export const PRE_MCP_NAME = 'pre-mcp-cap-check';

const USAGE = `Usage: node pre-mcp-cap-check.cjs < hook-input.json

Cursor beforeMCPExecution hook: checks agentstack.execute calls against the capability snapshot and
answers {"permission": "deny" | "ask", ...} when a call cannot work or uses an action you have not
approved yet. Every other call gets {} (Cursor's own approval rules apply; this hook never answers "allow").
Always exits 0.

Options:
  -h, --help    show this help`;

/** Prints the usage and exits on `--help`, exits 2 on an unknown option; returns when the arguments are fine. */
export function parsePreMcpArguments(): void {
  parseCommandLine({ name: PRE_MCP_NAME, usage: USAGE, options: {}, allowPositionals: true });
}
