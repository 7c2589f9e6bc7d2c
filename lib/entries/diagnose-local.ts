import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'diagnose-local',
  usage: `Usage: node diagnose-local.mjs [--online] [--fix] [--approve-actions] [--json]

Checks this machine's AgentStack setup: plugin files, ~/.cursor/mcp.json, token expiry, refresh token,
project pin, capability snapshot, device lock, plugin caches. Each gate PASS / WARN / FAIL with its fix.

Options:
  --online            also call GET /api/auth/me and probe the MCP surface
  --fix               apply safe repairs (normalize mcp.json, chmod 0600, remove a stale lock)
  --approve-actions   mark every action in the capability snapshot as approved
  --json              machine-readable output
  -h, --help          show this help`,
  options: {},
  allowPositionals: true,
});
