/**
 * diagnose-local's rows on what Cursor does with the plugin: whether its hooks have run (from the records each hook
 * leaves, hookRuns.ts), and which of the two ways to reach AgentStack this machine has set up. Pure.
 */
import { pass, warn, type Check } from '../../platform/report.js';
import { bearerToken, headerValue, isRealApiKey } from '../../agentstack/mcpJson/credential.js';
import { CONNECT_SERVER_NAME, DEVICE_CODE_SERVER_NAME } from '../../agentstack/server/toolNames.js';
import type { HookRunRecord, HookRuns } from '../../agentstack/plugin/hookRuns.js';
import { formatDuration } from './gatesState.js';
import { ENABLE_STEP, HOOKS_SETTINGS_PAGE, MCP_SETTINGS_PAGE } from '../../agentstack/plugin/cursorUi.js';
import { isUsable } from '../../agentstack/state/account.js';
import type { LocalState } from './state.js';
import { notChecked } from './gatesConfig.js';

export const WHERE_HOOKS_SHOW =
  `Look in ${HOOKS_SETTINGS_PAGE} and the "Hooks" and "MCP Logs" output channels; plugin hooks need Cursor 3.13 or later (the Cursor CLI runs them from its 2026.08.11 release); ` +
  'enterprise accounts may have local plugin imports off; a marketplace install of the same name wins over a local copy';

function ago(record: HookRunRecord, now: number): string {
  const at = Date.parse(record.at);
  return at > now ? `at ${record.at} (in the future)` : `${formatDuration(now - at)} ago`;
}

export function hooksRanGate(runs: HookRuns, now: number): Check {
  const id = 'hooks.ran';
  const session = runs['session-start'];
  const preMcp = runs['pre-mcp'];
  if (!session && !preMcp) return warn(id, 'no hook of this plugin has run on this machine', WHERE_HOOKS_SHOW);
  const cursor = (session ?? preMcp)!.cursor_version;
  const parts = [
    session ? `session-start last ran ${ago(session, now)}${cursor ? ` (Cursor ${cursor})` : ''}, ${session.outcome}` : 'session-start has not run',
    preMcp ? `pre-MCP ${ago(preMcp, now)}, ${preMcp.outcome}${!session && cursor ? ` (Cursor ${cursor})` : ''}` : 'pre-MCP has not run on an agentstack.execute call yet',
  ];
  if (preMcp?.unknown_form) {
    // The hook could not name what the call asked for, so per-action rules could not see it.
    return warn(id, `${parts.join('; ')}; the last AgentStack call was named in a form the plugin does not know (${preMcp.unknown_form}), so per-action rules asked for it (or let it through when none are set)`,
      'Update the plugin (a newer Cursor may name calls differently); if it repeats, send diagnose-local --report to AgentStack support');
  }
  return session ? pass(id, parts.join('; ')) : warn(id, parts.join('; '), WHERE_HOOKS_SHOW);
}

/** Whether any AgentStack call has reached the pre-MCP hook since the current token was issued. */
export function callsSinceSignInGate(s: Pick<LocalState, 'derived' | 'hookRuns'>): Check {
  const id = 'cursor.calls';
  if (!isUsable(s.derived.account.state) || s.derived.account.apiKey) return notChecked(id, 'no Device Code token in use');
  if (!s.derived.noCallSinceSignIn) return pass(id, `AgentStack calls have reached the plugin's pre-MCP hook since this sign-in (last ${s.hookRuns['pre-mcp']?.at ?? 'unknown'})`);
  return warn(id, 'no AgentStack call has reached the plugin\'s pre-MCP hook since this token was issued: Cursor may have user-agentstack turned off, or may be waiting for your approval', ENABLE_STEP);
}

/** Which of Connect (the plugin's own server, authorized by Cursor) and Device Code (the ~/.cursor/mcp.json entry) is set up. */
export function signInKindGate(s: Pick<LocalState, 'plugin' | 'mcp'>): Check {
  const id = 'sign-in.kind';
  if (s.mcp.error) return notChecked(id, 'mcp.json is not readable (its row says where it breaks)');
  const entry = s.mcp.entry;
  const signedIn = entry !== null && (bearerToken(headerValue(entry.headers, 'Authorization')) !== null || isRealApiKey(headerValue(entry.headers, 'X-API-Key')));
  const deviceCode = entry === null ? null : `Device Code: ${DEVICE_CODE_SERVER_NAME} from ~/.cursor/mcp.json${signedIn ? ', signed in' : ', no credential'}`;
  const connect = s.plugin.install ? `Connect: ${CONNECT_SERVER_NAME} from the installed plugin (whether Connect was clicked is kept by Cursor, not readable here)` : null;
  if (deviceCode && connect) return pass(id, `both: ${deviceCode}; ${connect}. Cursor shows two AgentStack servers; turn one off in ${MCP_SETTINGS_PAGE} if you use only the other`);
  if (deviceCode) return pass(id, `${deviceCode}; no installed plugin, so no Connect server`);
  if (connect) return pass(id, `${connect}; no Device Code entry (run /agentstack-authorize to add one)`);
  return warn(id, 'neither: no Device Code entry and no installed plugin', `Install the plugin, then click Connect next to AgentStack in ${MCP_SETTINGS_PAGE} or run /agentstack-authorize`);
}
