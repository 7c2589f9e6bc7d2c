/**
 * The snapshot rules, exactly: the catalog flattened to the tenant's actions, what a new catalog adds, removes and
 * leaves waiting for approval, and what approval records.
 */
import { describe, expect, it } from 'vitest';
import { flattenCatalog, readCatalog } from '../../lib/agentstack/snapshot/catalog.js';
import { applySnapshotDiff, diffSnapshots } from '../../lib/agentstack/snapshot/diff.js';
import { approveSnapshot } from '../../lib/agentstack/snapshot/approval.js';
import type { CapabilitySnapshot } from '../../lib/schemas/state.js';

const NOW = new Date('2026-11-30T12:00:00Z');
const snap = (names: string[], extra: Partial<CapabilitySnapshot> = {}): CapabilitySnapshot => ({
  fetched_at: '2026-11-30T00:00:00.000Z', audience: 'tenant', server_url: 'https://a/mcp', total_actions: names.length,
  actions: names.map((action) => ({ action, required_cap: null })), catalog_etag: null, ...extra,
});

describe('flattenCatalog', () => {
  const catalog = {
    total_actions: 7,
    catalog_etag: 'W/"abc"',
    domains: {
      projects: [
        { action: 'projects.list', required_cap: 'projects:read', summary: 'List', safe_action: true, category: 'read', doc_audience: 'tenant' },
        { action: 'projects.purge', doc_audience: 'Operator ' },
        { action: 'projects.debug', category: ' INTERNAL' },
      ],
      admin: [{ action: 'admin.ban', category: 'admin' }, { action: 'admin.peek', doc_audience: 'admin' }],
      data: [{ action: 'data.read' }, { action: 'data.blank', doc_audience: '  ', category: '' }],
    },
  };

  it('keeps only tenant entries (audience or category operator/internal/admin, any case or spacing, are hidden), each with its domain', () => {
    const snapshot = flattenCatalog(readCatalog(catalog), { fetchedAt: NOW, serverUrl: 'https://a/mcp' });
    expect(snapshot).toEqual({
      fetched_at: NOW.toISOString(),
      audience: 'tenant',
      server_url: 'https://a/mcp',
      total_actions: 3,
      catalog_etag: 'W/"abc"',
      skipped_entries: 0,
      skipped_reason: null,
      // Only what the plugin reads is kept: no summary, safe_action, category or audience is copied.
      actions: [
        { action: 'projects.list', domain: 'projects', required_cap: 'projects:read' },
        { action: 'data.read', domain: 'data', required_cap: null },
        { action: 'data.blank', domain: 'data', required_cap: null },
      ],
    });
  });

  it('without a server URL there is no server_url key; without an etag it is null; fetched_at defaults to now', () => {
    const before = Date.now();
    const snapshot = flattenCatalog(readCatalog({ total_actions: 0, domains: {} }));
    expect(Object.hasOwn(snapshot, 'server_url')).toBe(false);
    expect(snapshot).toMatchObject({ total_actions: 0, actions: [], catalog_etag: null, audience: 'tenant' });
    expect(Date.parse(snapshot.fetched_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(snapshot.fetched_at)).toBeLessThanOrEqual(Date.now() + 1);
    expect(Object.hasOwn(flattenCatalog(readCatalog({ total_actions: 0, domains: {} }), { serverUrl: '' }), 'server_url')).toBe(false);
  });
});

describe('diffSnapshots', () => {
  it('a snapshot without a server_url on either side is compared as the same server', () => {
    expect(diffSnapshots(snap(['a'], { server_url: undefined }), snap(['a', 'b'])).first).toBe(false);
    expect(diffSnapshots(snap(['a']), snap(['a', 'b'], { server_url: undefined }))).toEqual({ added: ['b'], removed: [], unapproved: ['b'], first: false });
    expect(diffSnapshots(snap(['a'], { server_url: 'https://a/mcp' }), snap(['a', 'b'], { server_url: 'https://b/mcp' }))).toEqual({ added: [], removed: [], unapproved: [], first: true });
  });

  it('names an action listed twice once, in catalog order', () => {
    expect(diffSnapshots(snap(['a']), snap(['c', 'b', 'c', 'a', 'b']))).toEqual({ added: ['c', 'b'], removed: [], unapproved: ['c', 'b'], first: false });
  });

  it('a previous snapshot without unapproved: only the added ones wait; removed ones are not waiting any more', () => {
    expect(diffSnapshots(snap(['a', 'b']), snap(['a', 'c'])).unapproved).toEqual(['c']);
    expect(diffSnapshots(snap(['a', 'b'], { unapproved: ['b'] }), snap(['a'])).unapproved).toEqual([]);
  });
});

describe('applySnapshotDiff', () => {
  it('a snapshot from another server starts over: approved now, nothing waiting, the old last_diff dropped', () => {
    const previous = snap(['a'], { server_url: 'https://old/mcp', unapproved: ['a'], approved_at: 'long ago', last_diff: { at: 'then', added: ['a'], removed: [] } });
    const { snapshot, diff } = applySnapshotDiff(previous, snap(['a', 'b']), NOW);
    expect(diff.first).toBe(true);
    expect(snapshot).toEqual({ ...snap(['a', 'b']), unapproved: [], approved_at: NOW.toISOString() });
  });

  it('a change replaces last_diff; no previous approved_at stays null', () => {
    const previous = snap(['a'], { last_diff: { at: 'then', added: ['x'], removed: [] } });
    const { snapshot } = applySnapshotDiff(previous, snap(['b']), NOW);
    expect(snapshot.last_diff).toEqual({ at: NOW.toISOString(), added: ['b'], removed: ['a'] });
    expect(snapshot.approved_at).toBeNull();
    expect(applySnapshotDiff(snap(['a']), snap([]), NOW).snapshot.last_diff).toEqual({ at: NOW.toISOString(), added: [], removed: ['a'] });
  });

  it('no change and no previous last_diff: none recorded', () => {
    const { snapshot } = applySnapshotDiff(snap(['a']), snap(['a']), NOW);
    expect(Object.hasOwn(snapshot, 'last_diff')).toBe(false);
  });
});

describe('approveSnapshot', () => {
  it('approves what was waiting, leaves the input as it was, and treats a missing list as nothing waiting', () => {
    const input = snap(['a', 'b'], { unapproved: ['b'] });
    const { snapshot, approved } = approveSnapshot(input, NOW);
    expect(approved).toEqual(['b']);
    expect(snapshot).toEqual({ ...input, unapproved: [], approved_at: NOW.toISOString() });
    expect(input.unapproved).toEqual(['b']);
    expect(approveSnapshot(snap(['a']), NOW)).toEqual({ snapshot: { ...snap(['a']), unapproved: [], approved_at: NOW.toISOString() }, approved: [] });
  });

  it('stamps the current time by default', () => {
    const before = Date.now();
    const at = Date.parse(approveSnapshot(snap(['a'])).snapshot.approved_at!);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now() + 1);
  });
});
