/** The per-action policy in one line, for the session card and diagnose-local's `policy` row. Pure. */
import { isNoPolicy, type PolicyInEffect, type RuleSource } from './effective.js';

/** `show` turns the settings file's path into what a person reads (`~/.cursor/...`). */
export function describePolicy(effect: PolicyInEffect, show: (path: string) => string = (p) => p): string {
  if (effect.kind === 'unreadable') return `the per-action rules cannot be read (${effect.reason}): every AgentStack call asks until they are fixed`;
  const { policy } = effect;
  if (isNoPolicy(policy)) return "default: no per-action rules (Cursor's own approval applies)";
  const from = (f: RuleSource) => (f.origin === 'env' ? `env ${f.source}` : show(f.source ?? ''));
  const parts = [`policy ${policy.preset}${policy.from.policy.origin === 'default' ? '' : ` (${from(policy.from.policy)})`}`];
  if (policy.ask.length) parts.push(`ask-actions ${policy.ask.join(',')} (${from(policy.from['ask-actions'])})`);
  if (policy.deny.length) parts.push(`deny-actions ${policy.deny.join(',')} (${from(policy.from['deny-actions'])})`);
  return parts.join('; ');
}

/** The line for places that show the rules only when there are some (or they cannot be read): null otherwise. */
export function policyNotice(effect: PolicyInEffect, show?: (path: string) => string): string | null {
  return effect.kind === 'ok' && isNoPolicy(effect.policy) ? null : describePolicy(effect, show);
}
