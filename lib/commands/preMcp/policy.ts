/**
 * The person's per-action rules applied to an execute call, pure. Cursor's permissions are per tool, and one tool
 * runs every AgentStack action, so this is where "ask me before anything that writes" or "never run projects.delete"
 * can be said. Each step is judged on its own (deny-actions, then the `readonly` preset, then ask-actions, then
 * `confirm-writes`); the call gets the strictest answer of its steps. The answer is `deny`, `ask` or neutral, never
 * `allow`: the rules only narrow what Cursor would otherwise allow.
 */
import { capabilityKind, isReadCapability } from '../../agentstack/auth/capabilityKind.js';
import { isNoPolicy, type Policy, type PolicyInEffect, type PolicyKey, type RuleSource } from '../../agentstack/policy/effective.js';
import { isCapabilityRule, ruleMatches } from '../../agentstack/policy/rules.js';
import { matchesByName } from '../../agentstack/policy/nameReading.js';
import { mapReading } from '../../agentstack/policy/capabilityMap.js';
import type { SnapshotRead } from '../../agentstack/snapshot/actionIndex.js';
import type { PreMcpAnswer } from './answer.js';
import type { ParsedExecuteArgs } from './decide.js';
import { because, reasonsOf } from './reason.js';
import { deadlineTicker } from '../../platform/hookIo.js';
import { rulesAskAnswer, type RuleAsk } from './gate/ask.js';
import { pluginCommand } from '../../agentstack/plugin/root.js';

/** A step as the policy sees it: its action and, when the snapshot knows the action, its required capability. */
export interface PolicyStep {
  action: string;
  /** False when the snapshot does not list the action (or there is none): its capability is then unknown. */
  known: boolean;
  cap: string | null;
  /** Why the capability is unknown, when it is (no snapshot, an unreadable one, one that does not list the action). */
  unknown?: string;
}

interface Verdict {
  permission: 'deny' | 'ask';
  action: string;
  why: string;
  key: PolicyKey;
  /** The rule that decided, when one did (null: the preset). */
  rule: string | null;
  /** Denied because the organization's rule needs a capability the snapshot cannot give: a new snapshot may change that. */
  snapshot?: true;
}

const MAX_NAMED = 5;

const SNAPSHOT_REPAIR = 'Your organization\'s rule needs the action\'s capability, which only the capability snapshot (~/.cursor/agentstack-capabilities.json) gives: start a new Cursor session while signed in to fetch it again (a folder in its place is moved aside), then retry.';

/** The steps of a readable call, once per action, with what the snapshot says of each. */
export function policySteps(args: ParsedExecuteArgs, snapshot: SnapshotRead | null): PolicyStep[] {
  if (args.kind !== 'ok') return [];
  const index = snapshot?.kind === 'ok' ? snapshot.index : null;
  const why = snapshot?.kind === 'malformed' ? 'the capability snapshot cannot be read' : index ? 'the capability snapshot does not list it' : 'there is no capability snapshot yet';
  const actions = [...new Set(args.args.steps.map((s) => s.action))];
  return actions.map((action) => (index?.has(action) ? { action, known: true, cap: index.capOf(action) } : { action, known: false, cap: null, unknown: why }));
}

/**
 * Whether a step counts as a read one. For the organization's preset, the snapshot's word is not enough: the snapshot
 * is a file the person (or an agent acting as them) can edit, so an action whose own name says it changes something
 * (`projects.create`, `files.delete`) is never a read one, whatever capability the snapshot gives it.
 */
function readsOnly(step: PolicyStep, managedPreset: boolean): boolean {
  if (!step.known || !isReadCapability(step.cap)) return false;
  return !managedPreset || !changesByName(step.action);
}

const changesByName = (action: string) => capabilityKind(action) === 'write' || capabilityKind(action) === 'admin';

/** true / false, or null when the rule names a capability and the step's capability is unknown. */
function matches(rule: string, step: PolicyStep): boolean | null {
  if (!step.known && isCapabilityRule(rule)) return null;
  return ruleMatches(rule, step.action, step.cap);
}

const needs = (step: PolicyStep) => (step.cap === null ? 'needs no capability' : `needs "${step.cap}"`);

/**
 * The step as the organization's capability rules see it: by the organization's capability map when one is in place
 * (an action it does not list is unknown: the strictest reading), else as the snapshot says. `mapped`: the map decided.
 */
function orgStepOf(policy: Policy, step: PolicyStep): { step: PolicyStep; mapped: boolean } {
  const map = policy.managed?.capabilities;
  return map ? { step: { action: step.action, ...mapReading(map, step.action) }, mapped: true } : { step, mapped: false };
}

function judgeStep(policy: Policy, step: PolicyStep): Verdict | null {
  const { action } = step;
  const managed = policy.managed;
  const org = orgStepOf(policy, step);
  const unknownOf = (s: PolicyStep) => `its capability cannot be known (${s.unknown ?? 'not in the snapshot'})`;
  // Repairing the snapshot helps only where the snapshot was read.
  const repair = org.mapped ? {} : { snapshot: true as const };
  let unsure: string | null = null;
  for (const rule of policy.deny) {
    const isOrg = managed?.deny.includes(rule) === true;
    const s = isOrg ? org.step : step;
    const m = matches(rule, s);
    if (m === true) return { permission: 'deny', action, why: `rule "${rule}" in deny-actions`, key: 'deny-actions', rule };
    // The organization's capability rule with no capability to judge by: the strictest reading.
    if (m === null && isOrg) return { permission: 'deny', action, why: `rule "${rule}" in deny-actions may apply and ${unknownOf(s)}`, key: 'deny-actions', rule, ...repair };
    // Without the organization's map, its capability rule never rests on the snapshot's word alone (a file the person can edit).
    if (isOrg && !org.mapped && matchesByName(rule, action)) return { permission: 'deny', action, why: `rule "${rule}" in deny-actions: its name says it needs such a capability, whatever the snapshot says`, key: 'deny-actions', rule };
    if (m === null) unsure ??= rule;
  }
  const managedPreset = managed?.preset === true;
  const p = managedPreset ? org.step : step;
  const read = readsOnly(p, managedPreset && !org.mapped);
  const byName = managedPreset && !org.mapped && p.known && isReadCapability(p.cap) && !read;
  const what = byName ? `the snapshot says it ${needs(p)}, but its name says it changes something`
    : p.known ? `it ${needs(p)}${managedPreset && org.mapped ? ' (the organization\'s capability map)' : ''}, which is not a read capability` : unknownOf(p);
  if (policy.preset === 'readonly' && !read) {
    if (p.known) return { permission: 'deny', action, why: `policy readonly: ${what}`, key: 'policy', rule: null };
    if (managedPreset) return { permission: 'deny', action, why: `policy readonly: ${what}`, key: 'policy', rule: null, ...repair };
    return { permission: 'ask', action, why: 'policy readonly: its capability is unknown (not in the snapshot)', key: 'policy', rule: null };
  }
  if (unsure !== null) return { permission: 'ask', action, why: `rule "${unsure}" in deny-actions may apply: its capability is unknown (not in the snapshot)`, key: 'deny-actions', rule: unsure };
  const asked = policy.ask.find((rule) => {
    const isOrg = managed?.ask.includes(rule) === true;
    return matches(rule, isOrg ? org.step : step) !== false || (isOrg && !org.mapped && matchesByName(rule, action));
  });
  if (asked !== undefined) return { permission: 'ask', action, why: `rule "${asked}" in ask-actions`, key: 'ask-actions', rule: asked };
  if (policy.preset === 'confirm-writes' && !read) {
    return { permission: 'ask', action, why: `policy confirm-writes: ${p.known ? what : managedPreset && org.mapped ? unknownOf(p) : 'its capability is unknown (not in the snapshot)'}`, key: 'policy', rule: null };
  }
  return null;
}

/** Where the rule that decided is set: the organization's managed file when it holds that rule. */
function sourceOf(v: Verdict, policy: Policy): RuleSource {
  const managed = policy.managed;
  if (managed && v.rule !== null && (v.key === 'deny-actions' ? managed.deny : managed.ask).includes(v.rule)) return { origin: 'managed', source: managed.path };
  return policy.from[v.key];
}

function whereSet(from: RuleSource): string {
  if (from.origin === 'managed') return `set by your organization in ${from.source}`;
  if (from.origin === 'env') return `set by ${from.source} in Cursor's environment`;
  return `set in ${from.source}`;
}

function howToChange(key: PolicyKey, from: RuleSource, pluginRoot?: string): string {
  if (from.origin === 'managed') return `ask your administrator (it is set in ${from.source})`;
  if (from.origin === 'env') return `change or unset ${from.source} where Cursor is started, then restart Cursor`;
  const script = pluginCommand('scripts/config.mjs', pluginRoot);
  return `${script} set ${key} … (or unset ${key})`;
}

function named(verdicts: readonly Verdict[], policy: Policy): string {
  const shown = verdicts.slice(0, MAX_NAMED).map((v) => `${v.action} (${v.why}, ${whereSet(sourceOf(v, policy))})`);
  return shown.join('; ') + (verdicts.length > MAX_NAMED ? `; and ${verdicts.length - MAX_NAMED} more` : '');
}

const actionsOf = (verdicts: readonly Verdict[]) =>
  verdicts.slice(0, MAX_NAMED).map((v) => v.action).join(', ') + (verdicts.length > MAX_NAMED ? ` and ${verdicts.length - MAX_NAMED} more` : '');

/** `deadline`: the processing deadline, in seconds since the process started (platform/hookIo.ts). */
export function decidePolicy(effect: PolicyInEffect, steps: readonly PolicyStep[], options: { pluginRoot?: string; deadline?: number } = {}): PreMcpAnswer {
  if (effect.kind === 'unreadable') {
    // What the readable rules deny stays denied (the organization's above all); every other call asks.
    const readable = effect.policy ? decideRules(effect.policy, steps, options) : {};
    if (readable.permission === 'deny') return readable;
    return because('rules_unreadable', {
      permission: 'ask',
      user_message: `AgentStack could not read your per-action rules (${effect.reason}), so every AgentStack call asks until they are fixed. Check them with ${pluginCommand('scripts/config.mjs', options.pluginRoot)} list or diagnose-local.`,
      agent_message: 'The person\'s AgentStack per-action rules cannot be read, so they are asked to confirm every AgentStack call.',
    });
  }
  return decideRules(effect.policy, steps, options);
}

function decideRules(policy: Policy, steps: readonly PolicyStep[], options: { pluginRoot?: string; deadline?: number }): PreMcpAnswer {
  if (isNoPolicy(policy)) return {};
  const tick = deadlineTicker(options.deadline);
  const verdicts = steps.map((step) => (tick(), judgeStep(policy, step))).filter((v): v is Verdict => v !== null);
  const denied = verdicts.filter((v) => v.permission === 'deny');
  if (denied.length) {
    const first = denied[0]!;
    return because(denied.map((v) => `rule:${v.key}`), {
      permission: 'deny',
      user_message: `AgentStack blocked this call: your rules deny ${named(denied, policy)}. To change that: ${howToChange(first.key, sourceOf(first, policy), options.pluginRoot)}.${denied.some((v) => v.snapshot) ? ` ${SNAPSHOT_REPAIR}` : ''}`,
      agent_message: `AgentStack call blocked by the person's per-action rules: ${actionsOf(denied)}. Do not retry or work around it; tell the person which action was refused.`,
    });
  }
  if (verdicts.length) return rulesAskAnswer(verdicts.map((v) => askOf(v, policy)));
  return {};
}

const askOf = (v: Verdict, policy: Policy): RuleAsk => ({ action: v.action, why: v.why, key: v.key, where: whereSet(sourceOf(v, policy)) });

/** The rules' ask about a step alone, when they ask (not deny, not let it through): what the gate compiles per action. */
export function ruleAskOf(policy: Policy, step: PolicyStep): RuleAsk | null {
  const v = judgeStep(policy, step);
  return v?.permission === 'ask' ? askOf(v, policy) : null;
}

const RANK = { deny: 2, ask: 1 } as const;
const rank = (answer: PreMcpAnswer) => (answer.permission ? RANK[answer.permission] : 0);
const joined = (a?: string, b?: string) => (a && b ? `${a} ${b}` : a ?? b);

/** The stricter of two answers (deny over ask over neutral); two of the same strictness say both messages. */
export function strictest(a: PreMcpAnswer, b: PreMcpAnswer): PreMcpAnswer {
  if (rank(a) !== rank(b)) return rank(a) > rank(b) ? a : b;
  if (rank(a) === 0) return a;
  const out: PreMcpAnswer = { permission: a.permission };
  const user = joined(a.user_message, b.user_message);
  const agent = joined(a.agent_message, b.agent_message);
  if (user !== undefined) out.user_message = user;
  if (agent !== undefined) out.agent_message = agent;
  return because([...reasonsOf(a), ...reasonsOf(b)], out);
}
