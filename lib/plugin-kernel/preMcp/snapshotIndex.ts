/**
 * The capability snapshot as the pre-MCP hook needs it: a Set-like map of action names to their required capability,
 * and the set of actions not yet approved. Built on every execute call, so it must stay cheap on 5,000 actions: the
 * file's top level is checked with a zod/mini schema, and each entry with two typeof checks rather than a per-entry
 * schema (measured on 5,000 actions: the full CapabilitySnapshotSchema parse takes ~20 ms, a zod array of unknowns
 * ~6 ms, this loop ~1 ms; the hook's whole budget over a bare `node` start is ~25 ms).
 */
import * as z from 'zod/mini';
import { readTextIfExists } from '../secureFile.js';

export interface SnapshotIndex {
  /** Action names in snapshot order (for suggestions). */
  names: string[];
  /** Action name -> its required capability (null when none). */
  requiredCap: Map<string, string | null>;
  unapproved: Set<string>;
}

const SnapshotTopSchema = z.looseObject({
  fetched_at: z.string(),
  audience: z.literal('tenant'),
  // checked by Array.isArray below: a zod array would copy all 5,000 entries
  actions: z.unknown(),
  unapproved: z.optional(z.nullable(z.array(z.string()))),
});

/** Indexes a parsed snapshot; null when its shape is not a capability snapshot. */
export function indexSnapshot(value: unknown): SnapshotIndex | null {
  const top = SnapshotTopSchema.safeParse(value);
  if (!top.success) return null;
  const actions = top.data.actions;
  if (!Array.isArray(actions)) return null;
  const names: string[] = [];
  const requiredCap = new Map<string, string | null>();
  for (const entry of actions as unknown[]) {
    if (!entry || typeof entry !== 'object') return null;
    const { action, required_cap: cap } = entry as { action?: unknown; required_cap?: unknown };
    if (typeof action !== 'string' || !action) return null;
    if (!requiredCap.has(action)) names.push(action);
    requiredCap.set(action, typeof cap === 'string' && cap ? cap : null);
  }
  return { names, requiredCap, unapproved: new Set(top.data.unapproved ?? []) };
}

export type SnapshotRead = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'ok'; index: SnapshotIndex };

/** Reads and indexes the snapshot file; never throws. */
export function readSnapshotIndex(path: string): SnapshotRead {
  let text: string | null;
  try {
    text = readTextIfExists(path);
  } catch {
    return { kind: 'malformed' };
  }
  if (text === null) return { kind: 'missing' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'malformed' };
  }
  const index = indexSnapshot(value);
  return index ? { kind: 'ok', index } : { kind: 'malformed' };
}
