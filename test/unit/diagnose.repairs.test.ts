import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffFingerprints, type Fingerprint } from '../../lib/agentstack/plugin/runtimeCopies.js';
import { approveSnapshot, approveSnapshotFile } from '../../lib/agentstack/snapshot/approval.js';

const snap = { fetched_at: '2026-11-30T10:00:00Z', audience: 'tenant' as const, total_actions: 2, actions: [{ action: 'a.b' }, { action: 'c.d' }], unapproved: ['c.d'] };

describe('approveSnapshot', () => {
  it('clears unapproved, stamps approved_at, keeps everything else', () => {
    const now = new Date('2026-11-30T12:00:00Z');
    const { snapshot, approved } = approveSnapshot(snap, now);
    expect(approved).toEqual(['c.d']);
    expect(snapshot).toEqual({ ...snap, unapproved: [], approved_at: '2026-11-30T12:00:00.000Z' });
  });
  it('approves the file in place with mode 0600, and refuses a missing snapshot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstack-approve-'));
    try {
      const path = join(dir, 'agentstack-capabilities.json');
      expect(() => approveSnapshotFile(path)).toThrow(/No usable capability snapshot/);
      writeFileSync(path, JSON.stringify(snap));
      expect(approveSnapshotFile(path)).toEqual(['c.d']);
      expect(JSON.parse(readFileSync(path, 'utf8')).unapproved).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    }
  });
});

describe('diffFingerprints', () => {
  const print = (hash: string, exec = false) => ({ hash, exec, mode: exec ? 0o755 : 0o644 });
  it('reports missing, changed and exec-bit differences; ignores extra files in the copy', () => {
    const source: Fingerprint = new Map([['a', print('1')], ['b', print('2')], ['c', print('3', true)], ['d', print('4')]]);
    const copy: Fingerprint = new Map([['a', print('1')], ['b', print('x')], ['c', print('3')], ['z', print('9')]]);
    expect(diffFingerprints(source, copy)).toEqual([
      { path: 'b', reason: 'changed' }, { path: 'c', reason: 'mode' }, { path: 'd', reason: 'missing' },
    ]);
  });
});
