// `npm run demo`: not built yet (issue #7). Says plainly what it will do, and exits non-zero.
process.stderr.write(`npm run demo is not available yet in this version.
When it lands it will: start the reference AgentStack core on a free loopback port, sign in with the Device Code
flow into a temporary Cursor dir, show the lean mcp.json entry, run the session-start and pre-MCP hooks as Cursor
would, and finish with verify-mcp-surface-e2e and diagnose-local.
`);
process.exit(1);
