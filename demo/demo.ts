/**
 * `npm run demo`: the whole plugin at work against the reference AgentStack core on loopback, in a temporary Cursor
 * dir, doing what Cursor and a person would do, one narrated step at a time. Exit 0 when every step worked.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCommandLine } from '../lib/platform/cli.js';
import { startCore, type RunningCore } from '../core/index.js';
import { maskSecret } from '../lib/platform/text/mask.js';
import { cursorPaths } from '../lib/agentstack/server/paths.js';
import { jwtExpiryMs } from '../lib/agentstack/auth/jwt.js';
import { applyBearer } from '../lib/agentstack/mcpJson/entry.js';
import { bearerOf } from '../lib/agentstack/mcpJson/credential.js';
import { updateMcpConfigFile } from '../lib/agentstack/mcpJson/file.js';
import { readRefreshFile, writeRefreshFile } from '../lib/agentstack/auth/refreshStore.js';
import { heading, hookAnswer, indent, runScript, say, StepFailed } from './steps.js';
import { signIn } from './signIn.js';

const USAGE = `Usage: npm run demo [-- --interactive] [-- --cursor-dir DIR] [-- --keep]

Runs the plugin end to end against the reference AgentStack core on a free loopback port.
  --interactive     you open the printed URL in your own browser and approve (default: an automatic approver)
  --cursor-dir DIR  use DIR as the Cursor config dir (default: a new temporary folder, removed afterwards)
  --keep            keep the temporary Cursor dir and print its path`;

const { values } = parseCommandLine({
  name: 'demo',
  usage: USAGE,
  options: { interactive: { type: 'boolean' }, 'cursor-dir': { type: 'string' }, keep: { type: 'boolean' } },
});

const given = typeof values['cursor-dir'] === 'string' ? values['cursor-dir'] : undefined;
const ownDir = !given;
// A relative DIR is taken from where the demo was started, as a shell would.
const cursorDir = given ? resolve(given) : mkdtempSync(join(tmpdir(), 'agentstack-demo-'));
let core: RunningCore | undefined;
let step = 'starting the reference core';

function sessionStartInput() {
  return JSON.stringify({ hook_event_name: 'sessionStart', session_id: 'demo-session', conversation_id: 'demo', cursor_version: 'demo', workspace_roots: [process.cwd()], is_background_agent: false, composer_mode: 'agent' });
}

function preMcpInput(tool: string, input: unknown, url: string, server: string) {
  return JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: tool, tool_input: JSON.stringify(input), url, mcp_server_name: server });
}

function expiryText(token: string | null): string {
  const ms = token ? jwtExpiryMs(token) : null;
  return ms ? `expires ${new Date(ms).toISOString()} (in ${Math.round((ms - Date.now()) / 1000)} s)` : 'expiry unknown';
}

async function main(): Promise<void> {
  const started = Date.now();
  core = await startCore({ port: 0, interval: 1 });
  // The core is on loopback: a proxy set for the person's own traffic must not carry the demo's requests.
  const noProxy = [process.env.NO_PROXY ?? process.env.no_proxy, '127.0.0.1'].filter(Boolean).join(',');
  process.env.NO_PROXY = process.env.no_proxy = noProxy;
  const env = { ...process.env, AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_CURSOR_DIR: cursorDir, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };
  const paths = cursorPaths(env);
  say(`AgentStack plugin demo: reference core at ${core.baseUrl}, Cursor dir ${cursorDir}`);

  step = 'device-code sign-in';
  heading(1, 'Sign in with the Device Code flow (hooks/scripts/device-code.mjs)');
  await signIn({ core, env, interactive: values.interactive === true });

  step = 'showing the result';
  heading(2, 'What landed in mcp.json (token masked) and the capability snapshot');
  const config = JSON.parse(readFileSync(paths.mcpJson, 'utf8'));
  const token = bearerOf(config);
  if (!token) throw new StepFailed('mcp.json has no Bearer after sign-in');
  const shown = structuredClone(config.mcpServers.agentstack);
  shown.headers.Authorization = `Bearer ${maskSecret(token)}`;
  say(indent(JSON.stringify({ mcpServers: { agentstack: shown } }, null, 2)));
  const snapshot = JSON.parse(readFileSync(paths.capabilities, 'utf8'));
  say(`   Capability snapshot: ${snapshot.actions.length} actions your account may run (operator/admin entries filtered out).`);
  say(`   Token ${expiryText(token)}.`);

  step = 'session-start with a fresh token';
  heading(3, 'Cursor starts an agent session: the sessionStart hook runs');
  const first = hookAnswer(await runScript('hooks/scripts/session-start.cjs', ['--from-hook'], env, sessionStartInput()), 'session-start');
  say(indent(String(first.additional_context ?? '(no context)')));

  step = 'session-start refreshing a token near expiry';
  say();
  say('   An hour later the token is about to expire (the demo installs a token that expires in 60 s):');
  core.setFaults({ accessTokenTtl: 60 });
  const expiring = await core.issueTokens();
  core.setFaults({ accessTokenTtl: 3600 });
  const stored = readRefreshFile(paths.refresh);
  if (!stored || !expiring.refresh_token) throw new StepFailed('no refresh token to demonstrate the refresh with');
  writeRefreshFile(paths.refresh, { ...stored, refresh_token: expiring.refresh_token, expires_at: new Date(Date.now() + 60_000).toISOString(), obtained_at: new Date().toISOString() });
  await updateMcpConfigFile(paths.mcpJson, (cfg) => applyBearer(cfg, { token: expiring.access_token, baseUrl: core!.baseUrl }));
  say(`   Before: token ${expiryText(expiring.access_token)}.`);
  const refreshesBefore = core.counters.refreshGrants;
  const second = hookAnswer(await runScript('hooks/scripts/session-start.cjs', ['--from-hook'], env, sessionStartInput()), 'session-start');
  const refreshed = bearerOf(JSON.parse(readFileSync(paths.mcpJson, 'utf8')));
  if (!refreshed || refreshed === expiring.access_token || core.counters.refreshGrants !== refreshesBefore + 1) {
    throw new StepFailed('session-start did not refresh the expiring token');
  }
  say(`   After:  token ${expiryText(refreshed)} (one refresh request reached the server; the refresh token rotated).`);
  say(indent(String(second.additional_context ?? '(no context)')));

  step = 'pre-MCP capability checks';
  heading(4, 'Before each MCP tool call: the beforeMCPExecution hook');
  const cases: Array<[string, string, string, string, unknown]> = [
    ['allowed execute call (projects.list)', 'agentstack.execute', core.mcpUrl, 'user-agentstack', { steps: [{ id: '1', action: 'projects.list' }] }],
    ['unknown action (projects.lst)', 'agentstack.execute', core.mcpUrl, 'user-agentstack', { steps: [{ id: '1', action: 'projects.lst' }] }],
    ["another server's tool", 'read_file', 'https://files.example.com/mcp', 'user-files', { path: '/tmp/x' }],
  ];
  for (const [label, tool, url, server, input] of cases) {
    const answer = hookAnswer(await runScript('hooks/scripts/pre-mcp-cap-check.cjs', [], env, preMcpInput(tool, input, url, server)), 'pre-mcp-cap-check');
    const verdict = typeof answer.permission === 'string' ? answer.permission : 'neutral (Cursor asks as usual)';
    say(`   ${label}: ${verdict}${answer.user_message ? ` — ${answer.user_message}` : ''}`);
  }

  step = 'verify-mcp-surface-e2e';
  heading(5, 'Prove the connection: verify-mcp-surface-e2e and diagnose-local');
  const verify = await runScript('scripts/verify-mcp-surface-e2e.mjs', ['--base-url', core.baseUrl], env, '', 60_000);
  say(indent(verify.stdout));
  if (verify.code !== 0) throw new StepFailed(`verify-mcp-surface-e2e exited ${verify.code}`);
  step = 'diagnose-local';
  const diagnose = await runScript('scripts/diagnose-local.mjs', ['--online'], env, '', 60_000);
  say(indent(diagnose.stdout));
  if (diagnose.code !== 0) throw new StepFailed(`diagnose-local exited ${diagnose.code}`);

  say();
  say(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s: every step worked.`);
}

try {
  await main();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`\nDemo failed at step "${step}": ${message}\n`);
  process.exitCode = 1;
} finally {
  await core?.close();
  if (ownDir && !values.keep) rmSync(cursorDir, { recursive: true, force: true });
  else say(`Cursor dir kept at ${cursorDir}`);
}
