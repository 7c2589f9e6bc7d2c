/**
 * The organization's capability map (install-hooks --catalog): where it is in place, the organization's capability
 * rules judge an action by it alone. A capability the person's snapshot gives (relabelled `data:read` or needing
 * nothing) is not consulted for them; an action the map does not list gets the strictest reading; the person's own
 * rules keep reading the snapshot. Without a map, the name-and-snapshot reading stays.
 */
import { describe, expect, it } from 'vitest';
import { NO_POLICY, type Policy, type PolicyInEffect } from '../../lib/agentstack/policy/effective.js';
import { hasManagedCapabilityRules, mapReading, parseCapabilityMap, withCapabilityMap, type CapabilityMap } from '../../lib/agentstack/policy/capabilityMap.js';
import { decidePolicy, type PolicyStep } from '../../lib/commands/preMcp/policy.js';
import { mapOfCatalog, type MapStatus } from '../../lib/commands/managed/capabilities.js';
import type { GateStatus } from '../../lib/commands/managed/status.js';
import { enterpriseHooksGate } from '../../lib/commands/diagnose/enterpriseGate.js';

const MANAGED = '/etc/agentstack/managed-settings.json';
const MAP: CapabilityMap = { actions: new Map<string, string | null>([['data.put', 'data:write'], ['data.query', 'data:read'], ['system.ping', null]]), writtenAt: '2026-12-07T00:00:00.000Z' };
const managed = (o: { deny?: string[]; ask?: string[]; preset?: Policy['preset'] }, map: CapabilityMap | null = MAP): PolicyInEffect => {
  const deny = o.deny ?? [];
  const ask = o.ask ?? [];
  return {
    kind: 'ok',
    policy: {
      ...NO_POLICY, deny, ask, preset: o.preset ?? NO_POLICY.preset,
      managed: { path: MANAGED, preset: o.preset !== undefined, deny, ask, ...(map ? { capabilities: map } : {}) },
      from: { policy: { origin: o.preset ? 'managed' : 'default', source: o.preset ? MANAGED : null }, 'ask-actions': { origin: 'managed', source: MANAGED }, 'deny-actions': { origin: 'managed', source: MANAGED } },
    },
  };
};
const step = (action: string, cap: string | null): PolicyStep => ({ action, known: true, cap });

describe('the organization\'s capability rules judge by its capability map when one is in place', () => {
  it('data.put relabelled data:read or needing nothing in the snapshot stays denied by *:write (the name says nothing)', () => {
    for (const cap of ['data:read', null]) {
      const answer = decidePolicy(managed({ deny: ['*:write'] }), [step('data.put', cap)]);
      expect(answer.permission).toBe('deny');
      expect(answer.user_message).toContain(`set by your organization in ${MANAGED}`);
      // Without the map the relabelled snapshot loosens the rule (what the map closes).
      expect(decidePolicy(managed({ deny: ['*:write'] }, null), [step('data.put', cap)])).toEqual({});
    }
  });

  it('an action the map does not list gets the strictest reading, whatever the snapshot says; a read action in the map passes', () => {
    const denied = decidePolicy(managed({ deny: ['*:write'] }), [step('data.export', 'data:read')]);
    expect(denied.permission).toBe('deny');
    expect(denied.user_message).toContain('the organization\'s capability map does not list it');
    expect(denied.user_message).not.toContain('start a new Cursor session'); // the snapshot is not what decides
    expect(decidePolicy(managed({ deny: ['*:write'] }), [step('data.query', 'data:write')])).toEqual({});
    expect(decidePolicy(managed({ deny: ['*:write'] }), [step('system.ping', 'system:write')])).toEqual({});
    expect(decidePolicy(managed({ deny: ['*:write'] }), [{ action: 'data.query', known: false, cap: null, unknown: 'there is no capability snapshot yet' }])).toEqual({});
  });

  it('a managed ask-rule and a managed readonly / confirm-writes read the map too', () => {
    expect(decidePolicy(managed({ ask: ['*:write'] }), [step('data.put', 'data:read')]).permission).toBe('ask');
    expect(decidePolicy(managed({ ask: ['*:write'] }), [step('data.export', null)]).permission).toBe('ask');
    expect(decidePolicy(managed({ ask: ['*:write'] }), [step('data.query', 'data:read')])).toEqual({});
    expect(decidePolicy(managed({ preset: 'readonly' }), [step('data.put', 'data:read')]).permission).toBe('deny');
    expect(decidePolicy(managed({ preset: 'readonly' }), [step('data.export', null)]).permission).toBe('deny');
    expect(decidePolicy(managed({ preset: 'readonly' }), [step('data.query', 'data:write')])).toEqual({});
    expect(decidePolicy(managed({ preset: 'confirm-writes' }), [step('data.put', null)]).permission).toBe('ask');
    expect(decidePolicy(managed({ preset: 'confirm-writes' }), [step('data.query', 'data:write')])).toEqual({});
  });

  it('the person\'s own rule beside the organization\'s keeps reading the snapshot', () => {
    const effect = managed({ deny: ['*:write'] });
    const policy = effect.policy!;
    const withOwn: PolicyInEffect = { kind: 'ok', policy: { ...policy, deny: [...policy.deny, '*:execute'] } };
    expect(decidePolicy(withOwn, [step('data.query', 'data:execute')]).permission).toBe('deny');
    expect(decidePolicy(withOwn, [step('data.query', 'data:read')])).toEqual({});
  });

  it('the map is read only while the organization has a capability rule; a broken map lists nothing', () => {
    let reads = 0;
    const read = () => (reads++, MAP);
    expect(withCapabilityMap(managed({ deny: ['projects.delete'] }, null), read).policy!.managed!.capabilities).toBeUndefined();
    expect(withCapabilityMap({ kind: 'ok', policy: NO_POLICY }, read)).toEqual({ kind: 'ok', policy: NO_POLICY });
    expect(reads).toBe(0);
    expect(withCapabilityMap(managed({ deny: ['*:write'] }, null), read).policy!.managed!.capabilities).toBe(MAP);
    expect(withCapabilityMap(managed({ deny: ['*:write'] }, null), () => null).policy!.managed!.capabilities).toBeUndefined();
    expect(reads).toBe(1);
    expect(hasManagedCapabilityRules({ preset: true, deny: [], ask: [] })).toBe(true);
    expect(hasManagedCapabilityRules({ preset: false, deny: ['projects.*'], ask: ['data.put'] })).toBe(false);
    const broken = parseCapabilityMap('{');
    expect(broken.broken).toBeTruthy();
    expect(mapReading(broken, 'data.query').known).toBe(false);
    expect(decidePolicy(managed({ deny: ['*:write'] }, broken), [step('data.query', 'data:read')]).permission).toBe('deny');
  });

  it('the catalog becomes a small map: tenant actions only, sorted, a bad entry skipped and counted', () => {
    const catalog = JSON.stringify({ domains: {
      data: [{ action: 'data.query', required_cap: 'data:read', summary: 'x' }, { action: 'data.put', required_cap: 'data:write' }, { required_cap: 'data:read' }],
      system: [{ action: 'system.ping' }, { action: 'internal.reindex', required_cap: 'actions:execute', doc_audience: 'internal' }],
    } });
    const { file, skippedReason } = mapOfCatalog(catalog, new Date(0));
    expect(file).toEqual({ v: 1, written_at: '1970-01-01T00:00:00.000Z', skipped: 1, actions: { 'data.put': 'data:write', 'data.query': 'data:read', 'system.ping': null } });
    expect(Object.keys(file.actions)).toEqual(['data.put', 'data.query', 'system.ping']);
    expect(skippedReason).toContain('domains.data.2');
    const map = parseCapabilityMap(JSON.stringify(file));
    expect(map.actions.get('data.put')).toBe('data:write');
    expect(map.actions.get('system.ping')).toBeNull();
    expect(() => mapOfCatalog('not json')).toThrow('not JSON');
    expect(() => mapOfCatalog('{"actions": []}')).toThrow();
    expect(() => mapOfCatalog('{"domains": {}}')).toThrow('lists no action');
    expect(() => mapOfCatalog('{"domains": {"data": [{"required_cap": "data:read"}]}}')).toThrow('1 malformed entries skipped');
  });
});

describe('diagnose\'s settings.enterprise_hooks row and the capability map', () => {
  const status = (map: Partial<MapStatus>): GateStatus => ({
    in_place: true, installed: true, version: '1.0.0', plugin_version: '1.0.0', hooks_file: '/etc/cursor/hooks.json', folder: '/usr/local/lib/agentstack-cursor', node: '/usr/bin/node', problems: [],
    capability_map: { path: '/usr/local/lib/agentstack-cursor/capabilities.json', in_place: false, actions: null, written_at: null, problem: null, ...map },
  });
  it('WARNs while the organization has a capability rule and no map, naming the command; PASSes with one', () => {
    const rules = { exists: true, values: { 'deny-actions': 'projects.delete,*:write' } };
    const warned = enterpriseHooksGate(rules, status({}));
    expect(warned.status).toBe('WARN');
    expect(warned.summary).toContain('can be loosened');
    expect(warned.fix).toContain('install-hooks --catalog -');
    expect(enterpriseHooksGate({ exists: true, values: { policy: 'readonly' } }, status({})).status).toBe('WARN');
    const passed = enterpriseHooksGate(rules, status({ in_place: true, actions: 12, written_at: '2026-12-07T00:00:00.000Z' }));
    expect(passed.status).toBe('PASS');
    expect(passed.summary).toContain('12 actions, written 2026-12-07T00:00:00.000Z');
    // No capability rule: nothing a snapshot could loosen, no word of the map.
    expect(enterpriseHooksGate({ exists: true, values: { 'deny-actions': 'projects.delete' } }, status({}))).toMatchObject({ status: 'PASS' });
  });
});
