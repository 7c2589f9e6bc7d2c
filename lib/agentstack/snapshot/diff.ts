/**
 * What changed in the action catalog since the previous snapshot, pure. Actions that appear are recorded as not yet
 * approved until the person approves the list (a server that quietly grows its action list is the "rug pull");
 * the very first snapshot, or one from another server, starts approved: the person just chose to sign in there.
 */
import type { CapabilitySnapshot } from '../../schemas/state.js';

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  /** (previous unapproved ∪ added) ∩ current. */
  unapproved: string[];
  first: boolean;
}

export function diffSnapshots(previous: CapabilitySnapshot | null, current: CapabilitySnapshot): SnapshotDiff {
  const currentNames = current.actions.map((a) => a.action);
  const currentSet = new Set(currentNames);
  const sameServer = !previous?.server_url || !current.server_url || previous.server_url === current.server_url;
  if (!previous || !sameServer) return { added: [], removed: [], unapproved: [], first: true };
  const previousSet = new Set(previous.actions.map((a) => a.action));
  const added = [...new Set(currentNames.filter((name) => !previousSet.has(name)))];
  const removed = [...previousSet].filter((name) => !currentSet.has(name));
  const pending = new Set([...(previous.unapproved ?? []), ...added]);
  const unapproved = [...new Set(currentNames)].filter((name) => pending.has(name));
  return { added, removed, unapproved, first: false };
}

/** The new snapshot with the diff recorded: `unapproved`, the previous `approved_at`, and `last_diff` when it changed. */
export function applySnapshotDiff(previous: CapabilitySnapshot | null, current: CapabilitySnapshot, now: Date): { snapshot: CapabilitySnapshot; diff: SnapshotDiff } {
  const diff = diffSnapshots(previous, current);
  const snapshot: CapabilitySnapshot = {
    ...current,
    unapproved: diff.unapproved,
    approved_at: diff.first ? now.toISOString() : previous?.approved_at ?? null,
  };
  if (diff.added.length || diff.removed.length) snapshot.last_diff = { at: now.toISOString(), added: diff.added, removed: diff.removed };
  else if (!diff.first && previous?.last_diff) snapshot.last_diff = previous.last_diff;
  return { snapshot, diff };
}
