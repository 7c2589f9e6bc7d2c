import { exitOnPluginError, parseCommandLine, usageError } from '../platform/cli.js';
import { assertCursorDirIsFolder } from '../agentstack/server/paths.js';
import { parseLimit, parseSince } from '../commands/activity/query.js';
import { runActivity } from '../commands/activity/run.js';

const { values } = parseCommandLine({
  name: 'activity',
  usage: `Usage: node activity.mjs [--since 2h|1d] [--limit N] [--action GLOB] [--failed] [--json]

What the agent ran through AgentStack on this machine, newest first, from the activity journal
(~/.cursor/agentstack-journal.jsonl): each call's time, actions and outcome (ok, or the error code),
and the calls the plugin's pre-call check denied or asked about, and why. The journal holds no
parameter, no result data and no token. Reads local files only.

Options:
  --since SPAN    only records from the last SPAN: 30m, 2h, 1d, 1w
  --limit N       at most N records (default 20)
  --action GLOB   only calls with an action matching GLOB (projects.*, *.delete)
  --failed        only calls that failed or were denied
  --json          one JSON document: the records with every field
  -h, --help      show this help

Turn recording off with: node config.mjs set journal off. Exit codes: 0 done, 2 bad usage.`,
  options: {
    since: { type: 'string' },
    limit: { type: 'string' },
    action: { type: 'string' },
    failed: { type: 'boolean' },
    json: { type: 'boolean' },
  },
});

let sinceMs: number | undefined;
let limit: number | undefined;
try {
  if (typeof values.since === 'string') sinceMs = parseSince(values.since);
  if (typeof values.limit === 'string') limit = parseLimit(values.limit);
} catch (error) {
  usageError('activity', (error as Error).message);
}
if (typeof values.action === 'string' && !values.action.trim()) usageError('activity', '--action needs a name or a glob');
try { assertCursorDirIsFolder(process.env); } catch (error) { exitOnPluginError('activity')(error); }
const result = runActivity({
  json: values.json === true,
  sinceMs,
  limit,
  action: typeof values.action === 'string' ? values.action.trim() : undefined,
  failed: values.failed === true,
});
process.stdout.write(result.stdout);
process.exitCode = result.code;
