/**
 * The pre-MCP decision, pure: given the hook input, the capability snapshot and the token's claims, what Cursor
 * should do with an MCP call (answer.ts): `deny` for what cannot work, `ask` for what the person has not seen, `{}`
 * otherwise. An object without `permission` leaves the decision to Cursor's own rules (and an unreadable answer would
 * fail open to the same place), so the hook can only ever narrow what Cursor would otherwise allow.
 */
import { ExecuteArgsSchema, type BeforeMcpInput, type ExecuteArgs } from '../../schemas/hooks.js';
import { callIdentity, isAgentStackCall, namesExecuteTool } from '../../agentstack/server/callIdentity.js';
import { MAX_NAMED, unknownActionAnswer } from './unknownAction.js';
import type { NameIndex } from './suggest.js';
import { because } from './reason.js';
import { grantedCaps } from '../../agentstack/auth/scopes.js';
import type { SnapshotRead } from '../../agentstack/snapshot/actionIndex.js';
import { NEUTRAL, type PreMcpAnswer } from './answer.js';
import { deadlineTicker } from '../../platform/hookIo.js';
import { pluginCommand } from '../../agentstack/plugin/root.js';

export { GRANTED_SCOPE_CLAIMS, grantedCaps } from '../../agentstack/auth/scopes.js';

export interface PreMcpContext {
  /** The validated hook input, or null when stdin was not a valid beforeMCPExecution object. */
  input: BeforeMcpInput | null;
  /** The snapshot as read (null: not read, treated as missing). */
  snapshot: SnapshotRead | null;
  /** Claims of the Bearer in mcp.json (unverified hints), or null. */
  claims: Record<string, unknown> | null;
  now: number;
  /** Base URLs that identify the AgentStack server by url. */
  knownBaseUrls?: readonly string[];
  /** Where the plugin lives, to name the approval command. */
  pluginRoot?: string;
  /** Every action name, when known without reading the whole snapshot (the gate's list): what suggestions look at. */
  names?: readonly string[] | NameIndex;
  /** The processing deadline, in seconds since the process started (platform/hookIo.ts). */
  deadline?: number;
}

const list = (names: readonly string[]) =>
  names.slice(0, MAX_NAMED).join(', ') + (names.length > MAX_NAMED ? ` and ${names.length - MAX_NAMED} more` : '');

export type ParsedExecuteArgs = { kind: 'ok'; args: ExecuteArgs } | { kind: 'invalid'; reason: string };

/** Parses `tool_input`: a JSON string (tolerating one level of double encoding) or an object. */
export function parseExecuteArgs(raw: unknown): ParsedExecuteArgs {
  let value = raw;
  for (let depth = 0; typeof value === 'string' && depth < 2; depth++) {
    try {
      value = JSON.parse(value);
    } catch {
      return { kind: 'invalid', reason: 'tool_input is not valid JSON' };
    }
  }
  const parsed = ExecuteArgsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.map(String).join('.') : '(root)';
    return { kind: 'invalid', reason: `tool_input has an unexpected shape at ${where}` };
  }
  return { kind: 'ok', args: parsed.data };
}

const EXECUTE_KEYS: ReadonlySet<string> = new Set(['steps', 'options']);
const STEP_KEYS: ReadonlySet<string> = new Set(['id', 'action', 'params']);
const MAX_UNDEFINED_KEYS = 3;

/**
 * The keys of an execute call's arguments that the server contract does not define (`{steps: [{id, action,
 * params}], options}`), as `action` or `steps[0].steps`: an action named there is one the per-action rules cannot
 * see. At most a few are named.
 */
export function undefinedKeys(args: ExecuteArgs): string[] {
  const found = Object.keys(args).filter((k) => !EXECUTE_KEYS.has(k));
  args.steps.forEach((step, i) => {
    for (const k of Object.keys(step)) if (!STEP_KEYS.has(k)) found.push(`steps[${i}].${k}`);
  });
  return found.slice(0, MAX_UNDEFINED_KEYS);
}

function approveCommand(pluginRoot?: string): string {
  return `${pluginCommand('scripts/diagnose-local.mjs', pluginRoot)} --approve-actions`;
}

export function decidePreMcp(ctx: PreMcpContext): PreMcpAnswer {
  const { input } = ctx;
  if (!input) return NEUTRAL;
  const identity = callIdentity(input);
  if (!namesExecuteTool(identity) || !isAgentStackCall(identity, ctx.knownBaseUrls ?? [])) return NEUTRAL;

  const parsed = parseExecuteArgs(input.tool_input);
  if (parsed.kind !== 'ok') {
    // Unreadable arguments cannot be checked: `deny` would break every call should Cursor change the encoding,
    // neutral would let unchecked actions through silently; `ask` keeps the person in the loop.
    return because('unreadable_arguments', {
      permission: 'ask',
      user_message: `AgentStack could not read this call's arguments (${parsed.reason}), so its actions were not checked. Allow only if you expect this call.`,
      agent_message: `The AgentStack pre-call check could not parse tool_input (${parsed.reason}). Send {"steps": [{"id", "action", "params"}]} as the arguments.`,
    });
  }

  const snapshot = ctx.snapshot;
  if (!snapshot || snapshot.kind !== 'ok') {
    const why = snapshot?.kind === 'malformed' ? 'is unreadable' : 'does not exist yet';
    return {
      agent_message: `AgentStack's capability snapshot ${why}, so this call was not checked. If AgentStack answers 401 or the call fails, ask the person to sign in with /agentstack-authorize; a new session refreshes the snapshot.`,
    };
  }
  const { index } = snapshot;
  const caps = grantedCaps(ctx.claims);
  // Sets, not lists searched per step: a call may carry tens of thousands of steps.
  const unknown = new Set<string>();
  const missing = new Map<string, string>();
  const unapproved = new Set<string>();
  const tick = deadlineTicker(ctx.deadline);
  for (const step of parsed.args.steps) {
    tick();
    const action = step.action;
    if (!index.has(action)) {
      unknown.add(action);
      continue;
    }
    const cap = index.capOf(action);
    if (cap && caps && !caps.has(cap) && !missing.has(action)) missing.set(action, cap);
    if (index.unapproved.has(action)) unapproved.add(action);
  }

  if (unknown.size) return unknownActionAnswer([...unknown], ctx.names ?? index.names(), index.skipped);
  if (missing.size) {
    const named = [...missing].map(([action, cap]) => `${action} needs "${cap}"`);
    const needed = [...new Set(missing.values())];
    return because('missing_capability', {
      permission: 'deny',
      user_message: `AgentStack blocked this call: your token lacks the capability ${needed.map((c) => `"${c}"`).join(', ')} (${list(named)}). Sign in again with a wider scope (/agentstack-login) if you need it.`,
      agent_message: `AgentStack call blocked: missing capability ${list(named)}. Do not retry; the person can re-login with a scope preset that grants it (/agentstack-login).`,
    });
  }
  if (unapproved.size) {
    const added = [...unapproved];
    return because('unapproved_action', {
      permission: 'ask',
      user_message: `AgentStack: this call uses ${added.length === 1 ? 'an action' : 'actions'} added to the server since you last approved its action list: ${list(added)}. Allow only if you expected this; approve the new list with ${approveCommand(ctx.pluginRoot)}.`,
      agent_message: `The AgentStack action(s) ${list(added)} appeared since the person last approved the action list; they are asked to confirm this call.`,
    });
  }
  return NEUTRAL;
}
