import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { readSnapshotMeta, snapshotIsStale } from '../../lib/agentstack/snapshot/meta.js';
import { applySnapshotDiff, diffSnapshots } from '../../lib/agentstack/snapshot/diff.js';
import { approveSnapshot } from '../../lib/agentstack/snapshot/approval.js';
import type { CapabilitySnapshot } from '../../lib/schemas/state.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/repo.js';

const snap = (names: string[], extra: Partial<CapabilitySnapshot> = {}): CapabilitySnapshot => ({
  fetched_at: '2026-11-30T00:00:00.000Z', audience: 'tenant', server_url: 'https://a/mcp', total_actions: names.length,
  actions: names.map((action) => ({ action, required_cap: null })), catalog_etag: null, ...extra,
});
const NOW = new Date('2026-11-30T12:00:00Z');

describe('snapshot diff', () => {
  it('first snapshot (or another server): everything approved', () => {
    expect(diffSnapshots(null, snap(['a', 'b']))).toEqual({ added: [], removed: [], unapproved: [], first: true });
    expect(diffSnapshots(snap(['a'], { server_url: 'https://old/mcp' }), snap(['a', 'b'])).first).toBe(true);
    const { snapshot } = applySnapshotDiff(null, snap(['a']), NOW);
    expect(snapshot).toMatchObject({ unapproved: [], approved_at: NOW.toISOString() });
    expect(snapshot.last_diff).toBeUndefined();
  });

  it('added and removed; unapproved = (old unapproved ∪ added) ∩ current', () => {
    const previous = snap(['a', 'b', 'c', 'x'], { unapproved: ['c', 'x'], approved_at: '2026-11-01T00:00:00.000Z' });
    const current = snap(['a', 'c', 'd', 'e']);
    expect(diffSnapshots(previous, current)).toEqual({ added: ['d', 'e'], removed: ['b', 'x'], unapproved: ['c', 'd', 'e'], first: false });
    const { snapshot } = applySnapshotDiff(previous, current, NOW);
    expect(snapshot.unapproved).toEqual(['c', 'd', 'e']);
    expect(snapshot.approved_at).toBe('2026-11-01T00:00:00.000Z');
    expect(snapshot.last_diff).toEqual({ at: NOW.toISOString(), added: ['d', 'e'], removed: ['b', 'x'] });
  });

  it('an unchanged catalog keeps the pending approvals and the last diff', () => {
    const previous = snap(['a', 'b'], { unapproved: ['b'], last_diff: { at: 'then', added: ['b'], removed: [] } });
    const { snapshot, diff } = applySnapshotDiff(previous, snap(['a', 'b']), NOW);
    expect(diff).toMatchObject({ added: [], removed: [] });
    expect(snapshot.unapproved).toEqual(['b']);
    expect(snapshot.last_diff).toEqual({ at: 'then', added: ['b'], removed: [] });
  });

  it('approval clears unapproved and stamps approved_at', () => {
    const { snapshot, approved } = approveSnapshot(snap(['a', 'b'], { unapproved: ['b'] }), NOW);
    expect(approved).toEqual(['b']);
    expect(snapshot).toMatchObject({ unapproved: [], approved_at: NOW.toISOString() });
  });
});

describe('snapshot top level at session start', () => {
  it('reads the same meta from the head and tail of a big written snapshot as from a full parse', () => {
    const dir = tempDir();
    try {
      const big = { ...bigSnapshot(5000), server_url: 'https://a/mcp', unapproved: ['data.op_7', 'files.op_5'], last_diff: { at: 'x', added: ['data.op_7'], removed: ['gone'] } };
      writeSnapshot(join(dir.path, 'pretty.json'), big);
      writeFileSync(join(dir.path, 'compact.json'), JSON.stringify(big));
      const pretty = readSnapshotMeta(join(dir.path, 'pretty.json'));
      const compact = readSnapshotMeta(join(dir.path, 'compact.json'));
      expect(pretty).toEqual(compact);
      expect(pretty).toMatchObject({ kind: 'ok', meta: { count: 5000, unapproved: ['data.op_7', 'files.op_5'], server_url: 'https://a/mcp' } });
      writeFileSync(join(dir.path, 'bad.json'), '{"fetched_at": 1');
      expect(readSnapshotMeta(join(dir.path, 'bad.json'))).toMatchObject({ kind: 'unreadable', folder: false });
      expect(readSnapshotMeta(join(dir.path, 'missing.json'))).toEqual({ kind: 'missing' });
      mkdirSync(join(dir.path, 'folder.json'));
      expect(readSnapshotMeta(join(dir.path, 'folder.json'))).toEqual({ kind: 'unreadable', reason: 'is a folder', folder: true });
    } finally {
      dir.cleanup();
    }
  });

  it('is stale when missing, older than 24 h, from another server, or dated in the future', () => {
    const meta = { fetched_at: NOW.toISOString(), total_actions: 1, count: 1, server_url: 'https://a/mcp' };
    const at = (h: number) => NOW.getTime() + h * 3600_000;
    expect(snapshotIsStale(null, 'https://a/mcp', at(0))).toBe(true);
    expect(snapshotIsStale(meta, 'https://a/mcp', at(23))).toBe(false);
    expect(snapshotIsStale(meta, 'https://a/mcp', at(25))).toBe(true);
    expect(snapshotIsStale(meta, 'https://b/mcp', at(0))).toBe(true);
    expect(snapshotIsStale(meta, 'https://a/mcp', at(-2))).toBe(true);
  });
});
