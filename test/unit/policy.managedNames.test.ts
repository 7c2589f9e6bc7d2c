/**
 * The organization's capability rules against a capability snapshot the person edited: an action whose name says it
 * changes, runs or destroys something is read by its name too, so relabelling it in the snapshot cannot take it out of
 * a managed `*:write` / `*:execute` / `*:admin` rule; the person's own rules keep reading the snapshot alone.
 */
import { describe, expect, it } from 'vitest';
import { NO_POLICY, type Policy, type PolicyInEffect } from '../../lib/agentstack/policy/effective.js';
import { capabilitiesByName, matchesByName } from '../../lib/agentstack/policy/nameReading.js';
import { decidePolicy, type PolicyStep } from '../../lib/commands/preMcp/policy.js';

const MANAGED = '/etc/agentstack/managed-settings.json';
const managed = (deny: string[], ask: string[] = []): PolicyInEffect => ({
  kind: 'ok',
  policy: { ...NO_POLICY, deny, ask, managed: { path: MANAGED, preset: false, deny, ask }, from: { ...NO_POLICY.from, 'deny-actions': { origin: 'managed', source: MANAGED } } },
});
const personal = (deny: string[]): PolicyInEffect => ({ kind: 'ok', policy: { ...NO_POLICY, deny, from: { ...NO_POLICY.from, 'deny-actions': { origin: 'settings', source: '/h/s.json' } } } as Policy });
const step = (action: string, cap: string | null): PolicyStep => ({ action, known: true, cap });

describe('managed capability rules read the action\'s name as well as the snapshot', () => {
  it('projects.create relabelled projects:read or needing nothing stays denied by *:write', () => {
    for (const cap of ['projects:read', null, 'projects:write']) {
      const answer = decidePolicy(managed(['*:write']), [step('projects.create', cap)]);
      expect(answer.permission).toBe('deny');
      expect(answer.user_message).toContain(`set by your organization in ${MANAGED}`);
    }
  });

  it('*:execute catches a relabelled run action; *:admin a relabelled delete; reads pass', () => {
    expect(decidePolicy(managed(['*:execute']), [step('actions.run_job', 'actions:read')]).permission).toBe('deny');
    expect(decidePolicy(managed(['*:admin']), [step('projects.delete', null)]).permission).toBe('deny');
    expect(decidePolicy(managed(['*:write']), [step('projects.list', 'projects:read')])).toEqual({});
    expect(decidePolicy(managed(['*:write']), [step('system.ping', null)])).toEqual({});
  });

  it('a managed capability ask-rule reads the name too', () => {
    expect(decidePolicy(managed([], ['*:write']), [step('data.write', 'data:read')]).permission).toBe('ask');
  });

  it('the person\'s own rule reads the snapshot alone (their file, their rule)', () => {
    expect(decidePolicy(personal(['*:write']), [step('projects.create', 'projects:read')])).toEqual({});
  });

  it('the name\'s reading: change and admin words only', () => {
    expect(capabilitiesByName('projects.create')).toEqual(['projects:write', 'projects:execute', 'projects:create']);
    expect(capabilitiesByName('projects.delete')).toContain('projects:admin');
    expect(capabilitiesByName('projects.list')).toEqual([]);
    expect(matchesByName('projects.*', 'projects.create')).toBe(false); // an action rule is not read by name here
  });
});
