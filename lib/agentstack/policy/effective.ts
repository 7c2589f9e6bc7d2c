/**
 * The per-action policy in effect, from the settings rows (environment > settings file > default), each part with
 * where it is set. A rule that cannot be read (the settings file unreadable or not JSON, a refused value) makes the
 * whole policy `unreadable`: the hook then asks for every AgentStack execute call rather than pass it unchecked.
 */
import type { SettingOrigin, SettingRow } from '../settings/effective.js';
import type { SettingsRead } from '../settings/file.js';
import { DEFAULT_POLICY, POLICY_ENV, parsePolicyPreset, parseRuleList, ruleEntries, type PolicyPreset } from './rules.js';

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
}

export type PolicyInEffect = { kind: 'ok'; policy: Policy } | { kind: 'unreadable'; reason: string };

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

const ENV_OF: Record<PolicyKey, string> = { policy: POLICY_ENV.policy, 'ask-actions': POLICY_ENV.ask, 'deny-actions': POLICY_ENV.deny };

/** Works out the policy from the settings rows and the settings file as read. Pure. */
export function policyInEffect(rows: readonly SettingRow[], file: Pick<SettingsRead, 'path' | 'broken' | 'problems' | 'rejected'>): PolicyInEffect {
  const policy: Policy = { preset: DEFAULT_POLICY, ask: [], deny: [], from: { ...NO_POLICY.from } };
  for (const key of POLICY_KEYS) {
    const row = rows.find((r) => r.key === key);
    if (row?.origin === 'env') {
      if (row.problem) return { kind: 'unreadable', reason: row.problem };
    } else if (file.broken) {
      // The file may hold this rule: it cannot be read, so nothing says it does not.
      return { kind: 'unreadable', reason: file.problems[0] ?? `the settings file ${file.path} cannot be read` };
    } else if (file.rejected.includes(key)) {
      return { kind: 'unreadable', reason: `the value of ${key} in ${file.path} is not valid` };
    }
    if (!row || row.value === null || row.origin === 'default') continue;
    const source = row.origin === 'env' ? ENV_OF[key] : file.path;
    policy.from[key] = { origin: row.origin, source };
    try {
      if (key === 'policy') policy.preset = parsePolicyPreset(row.value, key) as PolicyPreset;
      else policy[key === 'ask-actions' ? 'ask' : 'deny'] = ruleEntries(parseRuleList(row.value, key));
    } catch (error) {
      return { kind: 'unreadable', reason: (error as Error).message };
    }
  }
  return { kind: 'ok', policy };
}
