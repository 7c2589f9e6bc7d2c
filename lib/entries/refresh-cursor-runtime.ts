import { notYetImplemented } from '../plugin-kernel/cli.js';

notYetImplemented({
  name: 'refresh-cursor-runtime',
  usage: `Usage: node refresh-cursor-runtime.mjs [--fix] [--purge] [--json]

Finds copies of this plugin under ~/.cursor/plugins (local, cache, marketplaces) and reports the
ones whose version or files differ from this copy.

Options:
  --fix         replace stale files atomically
  --purge       remove cached copies so Cursor fetches them again
  --json        machine-readable output
  -h, --help    show this help`,
  options: {},
  allowPositionals: true,
});
