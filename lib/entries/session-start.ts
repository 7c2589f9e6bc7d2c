import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'session-start',
  usage: `Usage: node session-start.mjs --from-hook

Cursor sessionStart hook: reads the hook JSON on stdin, keeps ~/.cursor/mcp.json lean, refreshes the
AgentStack token, refreshes the capability snapshot, and prints {"additional_context": "..."}.
Always exits 0.

Options:
  --from-hook   run as Cursor's hook (stdin JSON in, one JSON object out)
  -h, --help    show this help

Environment: AGENTSTACK_BASE_URL, AGENTSTACK_CURSOR_DIR, AGENTSTACK_DISABLE_AUTO_LOGIN=1`,
  options: {},
  allowPositionals: true,
});
