/**
 * diagnose-local's one row on the organization's gate in Cursor's enterprise hooks file (commands/managed/status.ts
 * reads it): whether it is in place, its version against the plugin's, and what holds without it; and, where the
 * organization's rules include a capability rule, whether its capability map is in place (without it the person's
 * capability snapshot can loosen them for an action whose name says nothing).
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import type { ManagedRead } from '../../agentstack/settings/managed.js';
import { hasManagedCapabilityRules } from '../../agentstack/policy/capabilityMap.js';
import { ruleEntries } from '../../agentstack/policy/rules.js';
import { WITHOUT_MAP, gateStatus, gateSummary, mapSummary, type GateStatus } from '../managed/status.js';

type ManagedPart = Pick<ManagedRead, 'exists'> & Partial<Pick<ManagedRead, 'values'>>;

/** Whether the managed file holds a rule judged by capability (a managed policy, a rule with a colon). */
function capabilityRules(managed: ManagedPart): boolean {
  const v = managed.values ?? {};
  return hasManagedCapabilityRules({ preset: !!v.policy && v.policy !== 'default', deny: ruleEntries(v['deny-actions']), ask: ruleEntries(v['ask-actions']) });
}

export function enterpriseHooksGate(managed: ManagedPart, status: GateStatus = gateStatus(typeof __PLUGIN_VERSION__ === 'string' ? __PLUGIN_VERSION__ : 'unknown')): Check {
  const id = 'settings.enterprise_hooks';
  const admin = 'Ask your administrator to run: sudo node <plugin>/scripts/managed.mjs install-hooks (then managed.mjs status)';
  const catalog = 'Ask your administrator to run: curl -fsS -H "Authorization: Bearer $TOKEN" <server>/mcp/actions | sudo node <plugin>/scripts/managed.mjs install-hooks --catalog -';
  const map = managed.exists && capabilityRules(managed) ? status.capability_map : null;
  const mapPart = map ? `; the capability map: ${mapSummary(map)}` : '';
  if (!status.installed) {
    if (!managed.exists) return pass(id, 'no organization\'s gate in Cursor\'s enterprise hooks (no managed rules to hold)');
    return warn(id, `the organization's gate is ${gateSummary(status)}${mapPart}`, map && !map.in_place ? `${admin.replace(' (then', ' --catalog FILE (then')}; the catalog: curl -fsS -H "Authorization: Bearer $TOKEN" <server>/mcp/actions` : admin);
  }
  if (!status.in_place) return fail(id, `the organization's gate is ${gateSummary(status)}${mapPart}`, admin.replace('install-hooks', 'install-hooks again'));
  if (status.version !== status.plugin_version) return warn(id, `the organization's gate is ${gateSummary(status)}${mapPart}`, admin.replace('install-hooks', 'install-hooks again'));
  if (map && !map.in_place) return warn(id, `the organization's gate is ${gateSummary(status)}; but its capability rules can be loosened: ${map.problem ?? WITHOUT_MAP}`, catalog);
  return pass(id, `the organization's gate is ${gateSummary(status)}${mapPart}`);
}
