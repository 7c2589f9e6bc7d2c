/**
 * The beforeMCPExecution hook's I/O for execute calls: the files it reads (mcp.json for the Bearer and the server's
 * url, then the snapshot) and the decision. Runs before every AgentStack call, so only node built-ins, zod/mini and
 * pure code are in its bundle (no HTTP client, no OAuth client, no MCP SDK).
 */
import { decodeJwtClaims } from '../../agentstack/auth/jwt.js';
import { bearerOf, type McpConfig } from '../../agentstack/mcpJson/credential.js';
import { readMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { BeforeMcpInputSchema } from '../../schemas/hooks.js';
import { credentialResource, knownBaseUrls } from '../../agentstack/server/knownBases.js';
import { decidePreMcp, parseExecuteArgs, undefinedKeys } from './decide.js';
import { NEUTRAL, shownSafely, type PreMcpAnswer } from './answer.js';
import { callIdentity, firstLook, namesExecuteTool, placeCall, type CallIdentity } from '../../agentstack/server/callIdentity.js';
import { unreadableReason } from './front.js';
import { readSnapshotIndex } from '../../agentstack/snapshot/actionIndex.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import { credentialNoticeFor } from './credentialNotice.js';
import { listLookup, listable, type Stamp } from './gate/gate.js';
import { refreshGate } from './gate/build.js';
import { renewIfDue } from './renew.js';
import { listIndex } from './suggest.js';
import { isNoPolicy, policyInEffect, type PolicyInEffect } from '../../agentstack/policy/effective.js';
import { decidePolicy, policySteps, strictest } from './policy.js';
import { withCapabilityMap } from '../../agentstack/policy/capabilityMap.js';
import { because } from './reason.js';
import { DeadlineExceeded, checkDeadline } from '../../platform/hookIo.js';

export { knownBaseUrls };

export interface RunPreMcpOptions {
  env?: NodeJS.ProcessEnv;
  now?: number;
  pluginRoot?: string;
  log?: (message: string) => void;
  /** Told when the call is AgentStack's but named in a form the hook does not know (what it could not name). */
  onUnknownForm?: (what: string) => void;
  /** The fast path found no gate that holds: compile one from this state (stamps taken before any read). */
  gate?: { stamps: Stamp[] | null; plugin: string };
  /** The gate holds and lists every action (each between newlines): only the call's known actions are read. */
  known?: string;
  /** The processing deadline, in seconds since the process started: past it, the call gets `ask` (platform/hookIo.ts). */
  deadline?: number;
}

function readConfig(path: string, log: (m: string) => void): McpConfig {
  try {
    return readMcpConfigFile(path).config;
  } catch (error) {
    log(`cannot read ${path}: ${(error as Error).message}`);
    return {};
  }
}

/** True when the person's per-action rules narrow anything (an unreadable rule counts: it may). */
function rulesInEffect(policy: PolicyInEffect): boolean {
  return policy.kind === 'unreadable' || !isNoPolicy(policy.policy);
}

/**
 * A call on AgentStack's server that the hook cannot name (not our tool, not `mcp_auth`), or an execute call with
 * arguments the contract does not define: the rules cannot see its actions, so it gets `ask` while rules are in
 * effect and `{}` otherwise (a server that adds a tool or a field then breaks nobody).
 */
function uncheckable(what: string, policy: PolicyInEffect, log: (m: string) => void): PreMcpAnswer {
  if (!rulesInEffect(policy)) return NEUTRAL;
  log(`ask: ${what}; the per-action rules could not be checked`);
  return because('uncheckable', {
    permission: 'ask',
    user_message: `AgentStack: this call could not be checked against your per-action rules (${what}). Allow only if you expect this call.`,
    agent_message: `The AgentStack pre-call check could not check this call against the person's per-action rules (${what}); they are asked to confirm. Call agentstack.execute with {"steps": [{"id", "action", "params"}]} only.`,
  });
}

const toolShown = (identity: CallIdentity) => JSON.stringify((identity.tool ?? '').slice(0, 80));

/**
 * Our execute tool at a url that is none of the bases the plugin knows: it may be AgentStack reached another way (an
 * alias, a proxy, an entry written by someone else), so it gets `ask` while rules are in effect, naming the url.
 */
function unplacedCall(identity: CallIdentity, policy: PolicyInEffect, log: (m: string) => void): PreMcpAnswer {
  if (!rulesInEffect(policy)) return NEUTRAL;
  const url = JSON.stringify((identity.serverUrl ?? '').slice(0, 200));
  log(`ask: agentstack.execute at ${url}, a url the plugin does not know as AgentStack's`);
  return because('unplaced_url', {
    permission: 'ask',
    user_message: `AgentStack: this call runs agentstack.execute at ${url}, which is not the AgentStack server the plugin knows, so your per-action rules could not be applied. Allow only if you trust that server.`,
    agent_message: `The AgentStack pre-call check does not know ${url} as AgentStack's server; the person is asked to confirm this agentstack.execute call.`,
  });
}

/** The bases the plugin knows AgentStack by (the entry, the setting, the default, the credential's server). */
const basesOf = (config: McpConfig, env: NodeJS.ProcessEnv, refreshPath: string) => knownBaseUrls(config, env, [credentialResource(refreshPath)]);

/**
 * A call the hook could not read whole (`raw` holds only the top-level names it saw): an AgentStack execute call,
 * or one whose tool or server it cannot name, gets `ask`; one it can see goes elsewhere gets `{}`.
 */
function unreadableCall(identity: CallIdentity, why: string, env: NodeJS.ProcessEnv, log: (m: string) => void): PreMcpAnswer {
  if (identity.tool !== null) {
    if (firstLook(identity) === 'neutral') return NEUTRAL;
    const named = identity.serverName !== null || identity.serverUrl !== null;
    const paths = cursorPaths(env);
    const place = named ? placeCall(identity, basesOf(readConfig(paths.mcpJson, log), env, paths.refresh)) : 'agentstack';
    // Another server's call is `{}`; at a url the plugin cannot place, our execute tool is asked about below.
    if (place === 'other' || (place === 'unplaced' && !namesExecuteTool(identity))) return NEUTRAL;
    if (!namesExecuteTool(identity)) {
      const settings = applySettings(env);
      return uncheckable(`its tool ${toolShown(identity)} is not one AgentStack lists`, policyInEffect(settings.rows, settings.file, settings.managed), log);
    }
  }
  log(`ask: the call could not be read (${why})`);
  return because('unreadable_call', {
    permission: 'ask',
    user_message: `AgentStack could not read this MCP call (${why}), so its actions were not checked. Allow only if you expect this call.`,
    agent_message: `The AgentStack pre-call check could not read this call (${why}). Split the work into smaller agentstack.execute calls.`,
  });
}

/**
 * Checks an execute call (the hook's entry answers every other call itself, before this module is loaded); a call
 * whose check runs past the deadline gets `ask` while there is still time to answer before Cursor gives up on the hook.
 */
export function runPreMcp(raw: Record<string, unknown> | null, options: RunPreMcpOptions = {}): PreMcpAnswer {
  try {
    return checkExecuteCall(raw, options);
  } catch (error) {
    if (!(error instanceof DeadlineExceeded)) throw error;
    (options.log ?? (() => {}))(`ask: the check did not finish in time (${error.message})`);
    return because('too_slow', {
      permission: 'ask',
      user_message: 'AgentStack could not finish checking this call in time (it is very large), so its actions were not checked. Allow only if you expect this call.',
      agent_message: 'The AgentStack pre-call check could not finish checking this call in time. Split the work into smaller agentstack.execute calls.',
    });
  }
}

function checkExecuteCall(raw: Record<string, unknown> | null, options: RunPreMcpOptions): PreMcpAnswer {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const unreadable = unreadableReason(raw);
  if (raw && unreadable !== null) return unreadableCall(callIdentity(raw), unreadable, env, log);
  const parsed = BeforeMcpInputSchema.safeParse(raw);
  if (!parsed.success) {
    log('stdin is not a beforeMCPExecution JSON object; answering neutral');
    return NEUTRAL;
  }
  const input = parsed.data;
  const identity = callIdentity(input);
  if (firstLook(identity) === 'neutral') return NEUTRAL;

  const paths = cursorPaths(env);
  const config = readConfig(paths.mcpJson, log);
  // The base-url setting identifies AgentStack too (environment > settings file); a broken file is only logged.
  const settings = applySettings(env);
  for (const problem of settings.problems) log(problem);
  const bases = basesOf(config, settings.env, paths.refresh);
  const place = placeCall(identity, bases);
  if (place === 'other' || (place === 'unplaced' && !namesExecuteTool(identity))) return NEUTRAL;
  // The person's per-action rules (settings `policy`, `ask-actions`, `deny-actions`) can only make it stricter.
  // The organization's capability map is read only while its rules include a capability rule.
  const policy = withCapabilityMap(policyInEffect(settings.rows, settings.file, settings.managed));
  if (place === 'unplaced') return shownSafely(unplacedCall(identity, policy, log));
  if (!namesExecuteTool(identity)) {
    const what = `its tool ${toolShown(identity)} is not one AgentStack lists`;
    options.onUnknownForm?.(`tool ${identity.tool ?? ''}`);
    return shownSafely(uncheckable(what, policy, log));
  }
  const bearer = bearerOf(config);
  const parsedArgs = parseExecuteArgs(input.tool_input);
  const known = options.known;
  const steps = parsedArgs.kind === 'ok' ? parsedArgs.args.steps : [];
  const isKnown = known === undefined ? null : listLookup(known, steps.length);
  const wanted = new Set(steps.map((s) => s.action).filter((a) => isKnown === null || !listable(a) || isKnown(a)));
  checkDeadline(options.deadline);
  const snapshot = readSnapshotIndex(paths.capabilities, wanted);
  checkDeadline(options.deadline);
  const checked = decidePreMcp({
    input,
    snapshot,
    claims: bearer ? decodeJwtClaims(bearer) : null,
    now: options.now ?? Date.now(),
    knownBaseUrls: bases,
    pluginRoot: options.pluginRoot,
    names: known === undefined ? undefined : listIndex(known, null),
    deadline: options.deadline,
  });
  const ruled = decidePolicy(policy, policySteps(parsedArgs, snapshot), { pluginRoot: options.pluginRoot, deadline: options.deadline });
  // A Bearer due for renewal is renewed in the background; this call is answered without waiting for it.
  renewIfDue({ paths, config, env: settings.env, processEnv: env, pluginRoot: options.pluginRoot, now: options.now ?? Date.now(), log });
  if (options.gate) {
    const claims = bearer ? decodeJwtClaims(bearer) : null;
    refreshGate({ paths, env, settingsEnv: settings.env, stamps: options.gate.stamps, config, claims, policy, bases, readSnapshot: () => readSnapshotIndex(paths.capabilities), now: options.now ?? Date.now(), plugin: options.gate.plugin });
  }
  const extra = parsedArgs.kind === 'ok' ? undefinedKeys(parsedArgs.args) : [];
  if (extra.length) options.onUnknownForm?.(`keys ${extra.join(', ')}`);
  const unchecked = extra.length ? uncheckable(`its arguments carry ${extra.join(', ')} beside the steps`, policy, log) : NEUTRAL;
  // A Device Code credential that cannot work is said before the checks that read it (ask, at most once per state
  // every ten minutes); only the person's own deny rule comes first.
  if (ruled.permission !== 'deny') {
    const notice = credentialNoticeFor({ paths, config, env: settings.env, serverName: identity.serverName, now: options.now ?? Date.now(), log });
    if (notice) return shownSafely(because('credential', notice));
  }
  const answer = strictest(strictest(checked, ruled), unchecked);
  if (answer.permission) log(`${answer.permission}: ${answer.agent_message ?? ''}`);
  return shownSafely(answer);
}
