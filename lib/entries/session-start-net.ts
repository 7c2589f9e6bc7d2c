// The network half of the session-start hook, loaded by session-start.mjs with import() only when it needs the
// network (see lib/plugin-kernel/sessionStart/net.ts). Run directly, it only explains itself.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export * from '../plugin-kernel/sessionStart/net.js';

const self = fileURLToPath(import.meta.url);
const invoked = process.argv[1] ? (() => { try { return realpathSync(process.argv[1]!); } catch { return process.argv[1]; } })() : '';
if (invoked === self || invoked === realpathSync(self)) {
  process.stdout.write(`Usage: (library) loaded by session-start.mjs; not meant to be run.

The network steps of the AgentStack sessionStart hook: token refresh, device sign-in and its poller,
capability snapshot refresh, and the account lookup. Run hooks/scripts/session-start.mjs instead.
`);
  process.exit(process.argv.includes('--help') || process.argv.includes('-h') ? 0 : 2);
}
