/**
 * What an action's own name says it needs, for the organization's capability rules. The capability snapshot is a file
 * the person (or an agent acting as them) can edit, so for a managed rule that names a capability (`*:write`,
 * `*:execute`) the snapshot's word is never the only one: an action whose name says it changes or runs something
 * (`projects.create`, `actions.run_job`) is also read as needing `<domain>:write`, `<domain>:execute` and
 * `<domain>:<its word>`, and one whose name says it administers or destroys (`projects.delete`) as needing
 * `<domain>:admin` too. A rule that matches either reading applies: relabelling the action in the snapshot (as
 * `projects:read`, or as needing no capability) cannot take it out of the rule. Pure.
 */
import { capabilityKind } from '../auth/capabilityKind.js';
import { globMatches, isCapabilityRule } from './rules.js';

const CHANGE_WORDS = new Set(['write', 'execute', 'exec', 'run', 'create', 'update', 'manage']);
const ADMIN_WORDS = new Set(['admin', 'delete', 'purge', 'destroy', 'owner']);

/** The capabilities an action's name says it may need (none for a name that says it only reads, or says nothing). */
export function capabilitiesByName(action: string): string[] {
  const kind = capabilityKind(action);
  if (kind !== 'write' && kind !== 'admin') return [];
  const dot = action.indexOf('.');
  const domain = (dot > 0 ? action.slice(0, dot) : action).toLowerCase();
  const words = Array.from(action.slice(dot + 1).replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().matchAll(/[a-z0-9]+/g), (m) => m[0]);
  const named = words.filter((w) => CHANGE_WORDS.has(w) || ADMIN_WORDS.has(w));
  const kinds = kind === 'admin' ? ['admin', 'write', 'execute'] : ['write', 'execute'];
  return [...new Set([...kinds, ...named].map((w) => `${domain}:${w}`))];
}

/** Whether a capability rule applies to an action by what its name says it needs (false for a rule that names actions). */
export function matchesByName(rule: string, action: string): boolean {
  return isCapabilityRule(rule) && capabilitiesByName(action).some((cap) => globMatches(rule, cap));
}
