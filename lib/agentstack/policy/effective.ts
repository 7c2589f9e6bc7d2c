/**
 * The per-action policy in effect, from the settings rows (environment > settings file > default), each part with
 * where it is set. A rule that cannot be read (the settings file unreadable or not JSON, a refused value) makes the
 * policy `unreadable`: the hook then asks for every AgentStack execute call rather than pass it unchecked, and still
 * denies what the rules it could read deny.
 */
import type { SettingOrigin, SettingRow } from '../settings/effective.js';
import type { SettingsRead } from '../settings/file.js';
import type { ManagedRead } from '../settings/managed.js';
import type { CapabilityMap } from './capabilityMap.js';
import { SETTING_ENV } from '../settings/variables.js';
import { DEFAULT_POLICY, parsePolicyPreset, parseRuleList, ruleEntries, type PolicyPreset } from './rules.js';

export const POLICY_KEYS = ['policy', 'ask-actions', 'deny-actions'] as const;
export type PolicyKey = (typeof POLICY_KEYS)[number];

/** Where a part of the policy is set: a variable's name or the settings file's path (null for the default). */
export interface RuleSource {
  origin: SettingOrigin;
  source: string | null;
}

export interface Policy {
  preset: PolicyPreset;
  ask: string[];
  deny: string[];
  from: Record<PolicyKey, RuleSource>;
  /** What the organization's managed file decides: its preset (when it is the stricter) and its rules. */
  managed?: { path: string; preset: boolean; ask: string[]; deny: string[]; capabilities?: CapabilityMap };
}

/**
 * `unreadable`: some part of the rules cannot be read, so every AgentStack call asks; `policy` then holds the parts
 * that could be read (the organization's above all), which still deny what they deny.
 */
export type PolicyInEffect = { kind: 'ok'; policy: Policy } | { kind: 'unreadable'; reason: string; policy?: Policy };

export const NO_POLICY: Policy = Object.freeze({
  preset: DEFAULT_POLICY,
  ask: [],
  deny: [],
  from: { policy: { origin: 'default', source: null }, 'ask-actions': { origin: 'default', source: null }, 'deny-actions': { origin: 'default', source: null } },
}) as Policy;

/** True when the policy changes nothing (today's behaviour). */
export function isNoPolicy(policy: Policy): boolean {
  return policy.preset === DEFAULT_POLICY && policy.ask.length === 0 && policy.deny.length === 0;
}

const ENV_OF: Record<PolicyKey, string> = { policy: SETTING_ENV.policy[0], 'ask-actions': SETTING_ENV['ask-actions'][0], 'deny-actions': SETTING_ENV['deny-actions'][0] };

/** The managed file's part in the policy, or why it cannot be read (every AgentStack call then asks). */
function managedPart(managed: ManagedPolicyRead | undefined): { part: NonNullable<Policy['managed']> | null; unreadable?: string } {
  if (!managed || managed.trusted === null && !managed.broken) return { part: null };
  if (managed.broken) return { part: null, unreadable: `the managed settings file ${managed.path} cannot be read (${managed.problems[0] ?? 'unreadable'})` };
  const bad = POLICY_KEYS.find((k) => managed.rejected.includes(k));
  const preset = managed.values.policy ? (parsePolicyPreset(managed.values.policy, 'policy') as PolicyPreset) : null;
  const part = { path: managed.path, preset: preset !== null, ask: ruleEntries(managed.values['ask-actions']), deny: ruleEntries(managed.values['deny-actions']) };
  return bad ? { part, unreadable: `the value of ${bad} in the managed settings file ${managed.path} is not valid` } : { part };
}

export type ManagedPolicyRead = Pick<ManagedRead, 'path' | 'broken' | 'problems' | 'rejected' | 'values' | 'trusted'>;

/** Why the person's own value of `key` cannot be read, or null when it can (or is not set). */
function personalProblem(key: PolicyKey, row: SettingRow | undefined, file: Pick<SettingsRead, 'path' | 'broken' | 'problems' | 'rejected'>): string | null {
  if (row?.origin === 'env') return row.problem ?? null;
  // The file may hold this rule: it cannot be read, so nothing says it does not.
  if (file.broken) return file.problems[0] ?? `the settings file ${file.path} cannot be read`;
  if (file.rejected.includes(key)) return `the value of ${key} in ${file.path} is not valid`;
  return null;
}

/**
 * Works out the policy from the settings rows, the person's settings file and the organization's managed file as
 * read. A managed rule is added to the person's; its `policy` counts when it is the stricter. A part that cannot
 * be read (the person's or the organization's) makes the result `unreadable` (every call asks), and every part that
 * can be read still applies in full: a broken personal file never weakens the organization's deny into an ask. Pure.
 */
export function policyInEffect(rows: readonly SettingRow[], file: Pick<SettingsRead, 'path' | 'broken' | 'problems' | 'rejected'>, managed?: ManagedPolicyRead): PolicyInEffect {
  const fromManaged = managedPart(managed);
  let unreadable = fromManaged.unreadable ?? null;
  const policy: Policy = { preset: DEFAULT_POLICY, ask: [], deny: [], from: { ...NO_POLICY.from } };
  for (const key of POLICY_KEYS) {
    const shown = rows.find((r) => r.key === key);
    // The person's own part; the managed part is added below.
    const row = shown?.origin === 'managed' ? shown.personal : shown;
    const problem = personalProblem(key, row, file);
    if (problem !== null) {
      unreadable ??= problem;
      continue;
    }
    if (!row || row.value === null || row.origin === 'default') continue;
    try {
      if (key === 'policy') policy.preset = parsePolicyPreset(row.value, key) as PolicyPreset;
      else policy[key === 'ask-actions' ? 'ask' : 'deny'] = ruleEntries(parseRuleList(row.value, key));
    } catch (error) {
      unreadable ??= (error as Error).message;
      continue;
    }
    policy.from[key] = { origin: row.origin, source: row.origin === 'env' ? ENV_OF[key] : file.path };
  }
  const part = fromManaged.part;
  if (part) {
    const preset = part.preset ? managed!.values.policy as PolicyPreset : undefined;
    const stricter = preset !== undefined && STRICTNESS[preset] >= STRICTNESS[policy.preset];
    if (stricter) {
      policy.preset = preset;
      policy.from.policy = { origin: 'managed', source: part.path };
    }
    policy.ask = [...new Set([...part.ask, ...policy.ask])];
    policy.deny = [...new Set([...part.deny, ...policy.deny])];
    if (part.ask.length && policy.from['ask-actions'].origin === 'default') policy.from['ask-actions'] = { origin: 'managed', source: part.path };
    if (part.deny.length && policy.from['deny-actions'].origin === 'default') policy.from['deny-actions'] = { origin: 'managed', source: part.path };
    policy.managed = { ...part, preset: stricter };
  }
  return unreadable === null ? { kind: 'ok', policy } : { kind: 'unreadable', reason: unreadable, policy };
}

const STRICTNESS: Record<PolicyPreset, number> = { default: 0, 'confirm-writes': 1, readonly: 2 };
