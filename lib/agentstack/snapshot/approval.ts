/**
 * Approving the capability snapshot (diagnose-local --approve-actions): the person has seen the actions added since
 * the last approval, so `unapproved` is emptied and `approved_at` set; the pre-MCP hook stops asking about them.
 */
import { readSnapshot, writeSnapshot } from './store.js';
import { PluginError } from '../../platform/errors.js';
import type { CapabilitySnapshot } from '../../schemas/state.js';

/** Pure: the approved snapshot and the actions that were waiting for approval. */
export function approveSnapshot(snapshot: CapabilitySnapshot, now: Date = new Date()): { snapshot: CapabilitySnapshot; approved: string[] } {
  const approved = [...(snapshot.unapproved ?? [])];
  return { snapshot: { ...snapshot, unapproved: [], approved_at: now.toISOString() }, approved };
}

/** Approves the snapshot file in place (atomic 0600 write). Throws `invalid_config` when there is no usable snapshot. */
export function approveSnapshotFile(path: string, now: Date = new Date()): string[] {
  const current = readSnapshot(path);
  if (!current) throw new PluginError('invalid_config', `No usable capability snapshot at ${path}; sign in or start an agent session first`);
  const { snapshot, approved } = approveSnapshot(current, now);
  writeSnapshot(path, snapshot);
  return approved;
}
