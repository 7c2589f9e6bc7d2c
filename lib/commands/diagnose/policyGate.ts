/**
 * diagnose-local's `policy` row: the per-action rules in effect and where each part is set; a WARN when they cannot
 * be read (every AgentStack call then asks) or when a rule matches no action in the snapshot (a typo has no effect).
 * Pure, over state already read.
 */
import { CONFIG_COMMAND } from '../../agentstack/state/story.js';
import { describePolicy, rulesMatchingNothing } from '../../agentstack/policy/describe.js';
import { policyInEffect } from '../../agentstack/policy/effective.js';
import { pass, warn, type Check } from '../../platform/report.js';
import { tilde } from '../../platform/text/tilde.js';
import type { LocalState } from './state.js';

export function policyGate(settings: LocalState['settings'], snapshot: LocalState['snapshot']): Check {
  const id = 'policy';
  const effect = policyInEffect(settings.rows, settings.file, settings.managed);
  const summary = describePolicy(effect, (path) => tilde(path));
  if (effect.kind === 'unreadable') {
    return warn(id, summary, `Fix the value (${CONFIG_COMMAND} list shows each one and where it comes from), or delete the settings file and set them again`);
  }
  const rules = [...effect.policy.ask, ...effect.policy.deny];
  const actions = snapshot.data?.actions;
  if (!actions) return pass(id, rules.length ? `${summary}; rules not compared with a snapshot (none yet)` : summary);
  const unmatched = rulesMatchingNothing(rules, actions);
  if (!unmatched.length) return pass(id, summary);
  const which = unmatched.map((r) => JSON.stringify(r)).join(', ');
  return warn(id, `${summary}; ${which} ${unmatched.length === 1 ? 'matches' : 'match'} no action in the snapshot (${actions.length} actions)`,
    'Check the spelling (the action "actions.list" lists the names); a rule that matches nothing has no effect until the server adds such an action');
}
