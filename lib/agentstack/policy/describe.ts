/** The per-action policy in words, for the session card, diagnose-local's `policy` row and config.mjs. Pure. */
import { isNoPolicy, type Policy, type PolicyInEffect, type RuleSource } from './effective.js';
import { ruleMatches } from './rules.js';

/** `show` turns the settings file's path into what a person reads (`~/.cursor/...`). */
export function describePolicy(effect: PolicyInEffect, show: (path: string) => string = (p) => p): string {
  if (effect.kind === 'unreadable') {
    const line = `the per-action rules cannot be read (${effect.reason}): every AgentStack call asks until they are fixed`;
    return effect.policy && !isNoPolicy(effect.policy) ? `${line}; still in effect: ${rulesInWords(effect.policy, show)}` : line;
  }
  const { policy } = effect;
  if (isNoPolicy(policy)) return "default: no per-action rules (Cursor's own approval applies)";
  return rulesInWords(policy, show);
}

function rulesInWords(policy: Policy, show: (path: string) => string): string {
  const from = (f: RuleSource) => (f.origin === 'env' ? `env ${f.source}` : f.origin === 'managed' ? `managed ${show(f.source ?? '')}` : show(f.source ?? ''));
  const parts = [`policy ${policy.preset}${policy.from.policy.origin === 'default' ? '' : ` (${from(policy.from.policy)})`}`];
  if (policy.ask.length) parts.push(`ask-actions ${policy.ask.join(',')} (${from(policy.from['ask-actions'])})`);
  if (policy.deny.length) parts.push(`deny-actions ${policy.deny.join(',')} (${from(policy.from['deny-actions'])})`);
  return parts.join('; ');
}

/** The line for places that show the rules only when there are some (or they cannot be read): null otherwise. */
export function policyNotice(effect: PolicyInEffect, show?: (path: string) => string): string | null {
  return effect.kind === 'ok' && isNoPolicy(effect.policy) ? null : describePolicy(effect, show);
}

/** The rules that match no action of a snapshot (a typo, or an action the server does not have yet). */
export function rulesMatchingNothing(rules: readonly string[], actions: ReadonlyArray<{ action: string; required_cap?: string | null }>): string[] {
  return rules.filter((rule) => !actions.some((a) => ruleMatches(rule, a.action, a.required_cap ?? null)));
}
