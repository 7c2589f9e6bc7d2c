/** diagnose-local's `policy` row over hand-made state: what is in effect, from where, and the rules that match nothing. */
import { describe, expect, it } from 'vitest';
import { policyGate } from '../../lib/commands/diagnose/policyGate.js';
import type { LocalState } from '../../lib/commands/diagnose/state.js';
import type { SettingRow } from '../../lib/agentstack/settings/effective.js';
import { noManagedSettings } from '../../lib/agentstack/settings/managed.js';

const FILE = '/nowhere/.cursor/agentstack-settings.json';
const settings = (rows: SettingRow[], file: Partial<LocalState['settings']['file']> = {}): LocalState['settings'] => ({
  rows, mode: 0o600, managed: noManagedSettings('/nowhere/managed-settings.json'), file: { path: FILE, exists: true, values: {}, problems: [], rejected: [], broken: false, ...file },
});
const row = (key: SettingRow['key'], value: string, origin: SettingRow['origin'] = 'settings'): SettingRow => ({ key, value, origin, source: origin === 'env' ? 'X' : FILE });
const snapshot = (actions: Array<{ action: string; required_cap?: string | null }> | null): LocalState['snapshot'] => ({
  exists: actions !== null, mode: 0o600, error: null, notFlat: false,
  data: actions && { fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: actions.length, actions },
} as LocalState['snapshot']);
const ACTIONS = [{ action: 'projects.list', required_cap: 'projects:read' }, { action: 'projects.delete', required_cap: 'projects:admin' }, { action: 'system.ping', required_cap: null }];

describe('policy row', () => {
  it('PASS with no rules', () => {
    expect(policyGate(settings([]), snapshot(ACTIONS))).toEqual({ id: 'policy', status: 'PASS', summary: "default: no per-action rules (Cursor's own approval applies)" });
  });

  it('PASS naming each part and where it is set', () => {
    const check = policyGate(settings([row('policy', 'confirm-writes', 'env'), row('deny-actions', 'projects:admin,projects.*')]), snapshot(ACTIONS));
    expect(check).toEqual({ id: 'policy', status: 'PASS', summary: `policy confirm-writes (env AGENTSTACK_POLICY); deny-actions projects:admin,projects.* (${FILE})` });
    expect(policyGate(settings([row('ask-actions', 'system.*')]), snapshot(ACTIONS)).summary).toBe(`policy default; ask-actions system.* (${FILE})`);
  });

  it('WARN for a rule that matches nothing in the snapshot (an action needing no capability matches no capability rule)', () => {
    const check = policyGate(settings([row('ask-actions', 'storage.*,projects.list'), row('deny-actions', '*:none,system:*', 'env')]), snapshot(ACTIONS));
    expect(check.status).toBe('WARN');
    expect(check.summary).toContain('"storage.*", "*:none", "system:*" match no action in the snapshot (3 actions)');
    expect(check.fix).toContain('actions.list');
    expect(policyGate(settings([row('deny-actions', 'nope')]), snapshot(ACTIONS)).summary).toContain('"nope" matches no action');
  });

  it('no snapshot: the rules are shown, not compared', () => {
    expect(policyGate(settings([row('deny-actions', 'nope')]), snapshot(null))).toMatchObject({ status: 'PASS', summary: expect.stringContaining('not compared with a snapshot') });
  });

  it('WARN when the rules cannot be read: every call asks', () => {
    const check = policyGate(settings([], { broken: true, problems: ['The settings file x is not valid JSON; it was ignored.'] }), snapshot(ACTIONS));
    expect(check.status).toBe('WARN');
    expect(check.summary).toBe('the per-action rules cannot be read (The settings file x is not valid JSON; it was ignored.): every AgentStack call asks until they are fixed');
    expect(check.fix).toContain('config.mjs list');
  });
});
