import { parseCommandLine, usageError } from '../platform/cli.js';
import { runConfig, type ConfigCommand } from '../commands/config/run.js';

const spec = {
  name: 'config',
  usage: `Usage: node config.mjs list|get KEY|set KEY VALUE|unset KEY [--json]

The plugin's settings, kept in ~/.cursor/agentstack-settings.json (mode 0600), so they reach Cursor
however it was started (a Cursor started from the Dock or a launcher sees no shell variables).
An environment variable still wins over its setting; list shows each value in effect and its origin
(env, settings or default).

Keys:
  base-url         the AgentStack server: https://, or http:// to a loopback host   (AGENTSTACK_BASE_URL)
  auto-login       true or false: session start begins a sign-in by itself (AGENTSTACK_DISABLE_AUTO_LOGIN=1)
  scope-preset     full, readonly or builder                                 (AGENTSTACK_SCOPE_PRESET)
  project          the project pinned at sign-in, an integer > 1; the file ~/.cursor/agentstack-project
                   (AGENTSTACK_PROJECT_ID)
  https-proxy      the proxy for https:// requests, http://host:port                 (HTTPS_PROXY)
  no-proxy         hosts reached directly, comma separated                           (NO_PROXY)
  oauth-client-id  the OAuth client the sign-in presents                  (AGENTSTACK_OAUTH_CLIENT_ID)
  policy           default, confirm-writes (ask before any step that is not a read) or readonly
                   (deny those steps)                                              (AGENTSTACK_POLICY)
  ask-actions      actions to ask about: names or globs (storage.*, *.purge) or capabilities
                   (projects:admin), comma separated                         (AGENTSTACK_ASK_ACTIONS)
  deny-actions     actions never to run, in the same form                   (AGENTSTACK_DENY_ACTIONS)
                   deny rules always hold; ask rules hold where Cursor asks (the IDE, the CLI) and may be
                   skipped under auto-run or for allowlisted tools: deny what must never run
  debug            api or off: trace every HTTP exchange, secrets masked; hooks write the trace to
                   ~/.cursor/agentstack-debug.log, scripts to stderr           (AGENTSTACK_DEBUG)
  journal          on or off: record AgentStack calls in ~/.cursor/agentstack-journal.jsonl (AGENTSTACK_JOURNAL)

Options:
  --json      machine-readable output
  -h, --help  show this help

Exit codes: 0 done, 1 failed (or get: no value), 2 bad usage or a refused value (nothing changed).`,
  options: { json: { type: 'boolean' } },
  allowPositionals: true,
} as const;

const ARITY: Record<string, number> = { list: 0, get: 1, set: 2, unset: 1 };

const { values, positionals } = parseCommandLine({ ...spec, options: { ...spec.options } });
const [action = 'list', ...rest] = positionals;
if (!Object.hasOwn(ARITY, action)) usageError('config', `unknown command ${JSON.stringify(action.slice(0, 40))} (use list, get, set or unset)`);
if (rest.length !== ARITY[action]) usageError('config', `${action} takes ${ARITY[action] === 2 ? 'KEY VALUE' : ARITY[action] === 1 ? 'KEY' : 'no arguments'}`);
const result = await runConfig({ action, key: rest[0], value: rest[1] } as ConfigCommand, { json: values.json === true });
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
