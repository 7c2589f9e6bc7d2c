import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'device-code',
  usage: `Usage: node device-code.mjs [options]

Signs this machine in to AgentStack with the OAuth Device Code flow and writes the lean
"agentstack" entry (Bearer) to ~/.cursor/mcp.json.

Options:
  --scope-preset NAME  full (default), readonly or builder
  --scopes "A B"       explicit space-separated scopes (overrides the preset)
  --no-browser         print the URL and code; do not open a browser (alias --headless)
  --json               one JSON event per line on stdout; human text on stderr
  -h, --help           show this help

Environment: AGENTSTACK_BASE_URL, AGENTSTACK_CURSOR_DIR, AGENTSTACK_PROJECT_ID,
             AGENTSTACK_OAUTH_CLIENT_ID, AGENTSTACK_OAUTH_CLIENT_SECRET
Exit codes: 0 signed in (or a sign-in is already running), 1 failed, 2 bad usage.`,
  options: {},
  allowPositionals: true,
});
