import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'verify-mcp-surface-e2e',
  usage: `Usage: node verify-mcp-surface-e2e.mjs [--base-url URL] [--token-env NAME] [--only mcp] [--json]

Verifies the AgentStack server contract: MCP initialize / tools/list / tools/call, REST parity,
/mcp/actions, /mcp/icon, /mcp/health, OAuth discovery and Connect readiness. Exit 1 on any FAIL.

Options:
  --base-url URL     server to check (default AGENTSTACK_BASE_URL or https://agentstack.tech)
  --token-env NAME   read the Bearer from this environment variable (default: ~/.cursor/mcp.json)
  --only mcp         run only the MCP checks
  --json             machine-readable output
  -h, --help         show this help`,
  options: {},
  allowPositionals: true,
});
