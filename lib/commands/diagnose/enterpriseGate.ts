/**
 * diagnose-local's one row on the organization's gate in Cursor's enterprise hooks file (commands/managed/status.ts
 * reads it): whether it is in place, its version against the plugin's, and what holds without it.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import type { ManagedRead } from '../../agentstack/settings/managed.js';
import { gateStatus, gateSummary, type GateStatus } from '../managed/status.js';

export function enterpriseHooksGate(managed: Pick<ManagedRead, 'exists'>, status: GateStatus = gateStatus(typeof __PLUGIN_VERSION__ === 'string' ? __PLUGIN_VERSION__ : 'unknown')): Check {
  const id = 'settings.enterprise_hooks';
  const admin = 'Ask your administrator to run: sudo node <plugin>/scripts/managed.mjs install-hooks (then managed.mjs status)';
  if (!status.installed) {
    if (!managed.exists) return pass(id, 'no organization\'s gate in Cursor\'s enterprise hooks (no managed rules to hold)');
    return warn(id, `the organization's gate is ${gateSummary(status)}`, admin);
  }
  if (!status.in_place) return fail(id, `the organization's gate is ${gateSummary(status)}`, admin.replace('install-hooks', 'install-hooks again'));
  if (status.version !== status.plugin_version) return warn(id, `the organization's gate is ${gateSummary(status)}`, admin.replace('install-hooks', 'install-hooks again'));
  return pass(id, `the organization's gate is ${gateSummary(status)}`);
}
