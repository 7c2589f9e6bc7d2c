import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'audit-cursor-plugin',
  usage: `Usage: node audit-cursor-plugin.mjs [DIR] [--json]

Audits a Cursor plugin folder (default: this plugin) against Cursor's plugin schema and the
AgentStack anti-patterns. Exit 1 on any FAIL.

Options:
  --json        machine-readable output
  -h, --help    show this help`,
  options: {},
  allowPositionals: true,
});
