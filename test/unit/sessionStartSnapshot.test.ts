/** Session start's snapshot decision and the card's Capabilities line, pure. */
import { describe, expect, it } from 'vitest';
import { planSnapshot } from '../../lib/commands/sessionStart/snapshot.js';
import { renderCard, type CardInput } from '../../lib/commands/sessionStart/card.js';
import type { SnapshotMetaRead } from '../../lib/agentstack/snapshot/meta.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const SERVER = 'https://a/mcp';
const ok = (hoursOld: number): SnapshotMetaRead => ({ kind: 'ok', meta: { fetched_at: new Date(NOW - hoursOld * 3600_000).toISOString(), server_url: SERVER, total_actions: 3, count: 3 } });
const failedAgo = (minutes: number, server = SERVER) => ({ at: new Date(NOW - minutes * 60_000).toISOString(), server_url: server, message: 'HTTP 500' });
const plan = (over: Partial<Parameters<typeof planSnapshot>[0]>) => planSnapshot({ read: { kind: 'missing' }, failure: null, serverUrl: SERVER, signedIn: true, now: NOW, timeLeftMs: 5_000, ...over });

describe('planSnapshot', () => {
  it('fetches a missing or stale snapshot; not a fresh one, nor when signed out', () => {
    expect(plan({})).toEqual({ fetch: true });
    expect(plan({ read: ok(25) })).toEqual({ fetch: true });
    expect(plan({ read: ok(1) })).toMatchObject({ fetch: false, why: 'fresh' });
    expect(plan({ signedIn: false })).toMatchObject({ fetch: false, why: 'signed_out' });
  });

  it('after a failure for this server, waits 15 minutes before trying again', () => {
    expect(plan({ failure: failedAgo(5) })).toEqual({ fetch: false, why: 'backoff', retryAt: NOW + 10 * 60_000 });
    expect(plan({ failure: failedAgo(16) })).toEqual({ fetch: true });
    expect(plan({ failure: failedAgo(5, 'https://other/mcp') })).toEqual({ fetch: true });
    expect(plan({ failure: failedAgo(-30) })).toEqual({ fetch: true }); // dated in the future: does not hold off
  });

  it('the 15 minutes: a failure this very moment waits, one exactly 15 minutes old does not; a date that is not one does not hold off', () => {
    expect(plan({ failure: failedAgo(0) })).toEqual({ fetch: false, why: 'backoff', retryAt: NOW + 15 * 60_000 });
    expect(plan({ failure: { ...failedAgo(0), at: new Date(NOW - 15 * 60_000 + 1).toISOString() } })).toMatchObject({ fetch: false, why: 'backoff' });
    expect(plan({ failure: failedAgo(15) })).toEqual({ fetch: true });
    expect(plan({ failure: { ...failedAgo(5), at: 'not a date' } })).toEqual({ fetch: true });
  });

  it('more than a second left is enough time to fetch; a second or less is not', () => {
    expect(plan({ timeLeftMs: 1_001 })).toEqual({ fetch: true });
    expect(plan({ timeLeftMs: 1_000 })).toMatchObject({ fetch: false, why: 'no_time' });
    expect(plan({ read: ok(1), timeLeftMs: 0 })).toMatchObject({ fetch: false, why: 'fresh' });
    expect(plan({ signedIn: false, read: { kind: 'unreadable', reason: 'is a folder', folder: true } })).toMatchObject({ why: 'signed_out' });
  });

  it('never fetches into a folder, nor with too little time left', () => {
    expect(plan({ read: { kind: 'unreadable', reason: 'is a folder', folder: true } })).toMatchObject({ fetch: false, why: 'folder' });
    expect(plan({ read: { kind: 'unreadable', reason: 'is not a capability snapshot', folder: false } })).toEqual({ fetch: true });
    expect(plan({ timeLeftMs: 900 })).toMatchObject({ fetch: false, why: 'no_time' });
  });
});

describe('the card\'s Capabilities line', () => {
  const base: CardInput = { serverUrl: SERVER, account: { state: 'signed_in', expiresAt: new Date(NOW + 3_600_000).toISOString(), apiKey: false }, who: 'a@b', project: { id: null, reason: 'account_default', source: null, nextSignIn: null }, capabilities: { count: 12 }, pluginRoot: '/p', notes: [], todo: [], now: NOW };
  const line = (capabilities: CardInput['capabilities']) => renderCard({ ...base, capabilities }).split('\n').find((l) => l.startsWith('- Capabilities:'));

  it('says the count, the skipped entries and the problem on one line', () => {
    expect(line({ count: 12 })).toBe('- Capabilities: 12 actions in the snapshot');
    expect(line({ count: 12, skipped: 1, skippedReason: 'domains.p.1.action: bad' })).toBe('- Capabilities: 12 actions in the snapshot; 1 malformed catalog entry was left out (first: domains.p.1.action: bad)');
    expect(line({ count: null })).toBe('- Capabilities: no snapshot yet');
    expect(line({ count: null, problem: '/x/agentstack-capabilities.json is a folder' })).toBe('- Capabilities: /x/agentstack-capabilities.json is a folder');
  });

  it('keeps every other line of the card whatever the snapshot\'s state', () => {
    const card = renderCard({ ...base, capabilities: { count: null, problem: 'broken' } });
    expect(card).toMatch(/- Account: signed in as a@b/);
    expect(card).toMatch(/- Token: valid until/);
    expect(card).toMatch(/- Project: your account's default/);
  });
});
