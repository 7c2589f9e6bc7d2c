import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'pre-mcp-cap-check',
  usage: `Usage: node pre-mcp-cap-check.mjs < hook-input.json

Cursor beforeMCPExecution hook: checks agentstack.execute calls against the capability snapshot and
answers {"permission": "allow" | "deny" | "ask", ...}. Calls to other servers get the neutral answer.
Always exits 0.

Options:
  -h, --help    show this help`,
  options: {},
  allowPositionals: true,
});
