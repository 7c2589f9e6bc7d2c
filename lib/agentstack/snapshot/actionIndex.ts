/**
 * The capability snapshot as the pre-MCP hook needs it: which actions exist and their required capability, and
 * the set of actions not yet approved. Built on every execute call, so it must stay cheap on 5,000 actions: the
 * file's top level is checked with SnapshotTopSchema, and each entry with two typeof checks rather than a per-entry
 * schema (measured on 5,000 actions: the full CapabilitySnapshotSchema parse takes ~20 ms, a zod array of unknowns
 * ~6 ms, this loop ~1 ms; the hook's whole budget over a bare `node` start is ~25 ms).
 */
import { SnapshotTopSchema } from '../../schemas/state.js';
import { readBytesIfExists } from '../../platform/fs/secureFile.js';
import { ACTIONS_END, ACTIONS_KEY, withoutActions } from './layout.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export interface SnapshotIndex {
  has(action: string): boolean;
  /** The action's required capability (null when none). */
  capOf(action: string): string | null;
  /** Action names in snapshot order (for suggestions; built on first use). */
  names(): string[];
  unapproved: Set<string>;
  /** Catalog entries left out as malformed when the snapshot was fetched: an action missing here may be one of them. */
  skipped: number;
}

/**
 * Indexes a parsed snapshot; null when its shape is not a capability snapshot. With `wanted` (the actions of the
 * call being checked), only those are recorded: every entry is still checked, but no 5,000-entry Map is built.
 */
export function indexSnapshot(value: unknown, wanted?: ReadonlySet<string>): SnapshotIndex | null {
  const top = SnapshotTopSchema.safeParse(value);
  if (!top.success) return null;
  const actions = top.data.actions;
  if (!Array.isArray(actions)) return null;
  const caps = new Map<string, string | null>();
  for (let i = 0; i < actions.length; i++) {
    const entry = actions[i] as { action?: unknown; required_cap?: unknown } | null;
    const action = entry?.action;
    if (typeof action !== 'string' || !action) return null;
    if (wanted && !wanted.has(action)) continue;
    const cap = entry!.required_cap;
    caps.set(action, typeof cap === 'string' && cap ? cap : null);
  }
  let names: string[] | undefined;
  return {
    has: (action) => caps.has(action),
    capOf: (action) => caps.get(action) ?? null,
    names: () => (names ??= [...new Set((actions as Array<{ action: string }>).map((a) => a.action))]),
    unapproved: new Set(top.data.unapproved ?? []),
    skipped: top.data.skipped_entries ?? 0,
  };
}

const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The flat action entry whose `"action"` is `name`, found in the bytes without decoding the rest; null if not found. */
function findEntry(bytes: Buffer, name: string): { action?: unknown; required_cap?: unknown } | null {
  const needle = Buffer.from(`"action": ${JSON.stringify(name)}`);
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
    if (bytes[at - 1] === BACKSLASH /* inside a string */) continue;
    const open = bytes.lastIndexOf(OPEN_BRACE, at);
    const close = bytes.indexOf(CLOSE_BRACE, at);
    try {
      const entry = JSON.parse(bytes.toString('utf8', open, close + 1)) as { action?: unknown; required_cap?: unknown };
      if (entry && entry.action === name) return entry;
    } catch { /* a brace inside a string: let the full parse decide */ }
    return null;
  }
  return null;
}

/**
 * The fast path for a snapshot in the layout of layout.ts: the top level is parsed from the bytes around the
 * `actions` array, and only the call's own actions are looked up in it, so the 5,000 entries are never decoded
 * (decoding 1.2 MB of UTF-8 costs more than the rest of the check). It answers only what it can prove (every wanted
 * action found, the top level valid); anything else (an action not found, another layout) returns null and the
 * caller parses the whole file.
 */
export function scanSnapshot(content: string | Buffer, wanted: ReadonlySet<string>): SnapshotIndex | null {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const start = bytes.indexOf(ACTIONS_KEY);
  const end = bytes.lastIndexOf(ACTIONS_END);
  if (start < 0 || end < 0) return null;
  const rest = withoutActions(bytes.toString('utf8', 0, start + ACTIONS_KEY.length), bytes.toString('utf8', end), end);
  if (rest === null) return null;
  let top: unknown;
  try {
    top = JSON.parse(rest);
  } catch {
    return null;
  }
  const parsed = SnapshotTopSchema.safeParse(top);
  if (!parsed.success) return null;
  const caps = new Map<string, string | null>();
  for (const name of wanted) {
    const entry = findEntry(bytes, name);
    if (!entry) return null;
    caps.set(name, typeof entry.required_cap === 'string' && entry.required_cap ? entry.required_cap : null);
  }
  let full: SnapshotIndex | null | undefined;
  return {
    has: (action) => caps.has(action),
    capOf: (action) => caps.get(action) ?? null,
    names: () => (full ??= indexSnapshot(JSON.parse(bytes.toString('utf8'))))?.names() ?? [],
    unapproved: new Set(parsed.data.unapproved ?? []),
    skipped: parsed.data.skipped_entries ?? 0,
  };
}

export type SnapshotRead = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'ok'; index: SnapshotIndex };

const MAX_SCANNED = 64;

/** Reads and indexes the snapshot file; never throws. */
export function readSnapshotIndex(path: string, wanted?: ReadonlySet<string>): SnapshotRead {
  let bytes: Buffer | null;
  try {
    bytes = readBytesIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.capabilities });
  } catch {
    return { kind: 'malformed' };
  }
  if (bytes === null) return { kind: 'missing' };
  // Each wanted action is one search through the file: past a few dozen, parsing it whole costs less.
  if (wanted && wanted.size <= MAX_SCANNED) {
    const fast = scanSnapshot(bytes, wanted);
    if (fast) return { kind: 'ok', index: fast };
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'malformed' };
  }
  const index = indexSnapshot(value, wanted);
  return index ? { kind: 'ok', index } : { kind: 'malformed' };
}
