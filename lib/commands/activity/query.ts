/** Which journal records `activity` shows, pure: `--since`, `--action`, `--failed`, `--limit`, newest first. */
import { PluginError } from '../../platform/errors.js';
import { globMatches } from '../../agentstack/policy/rules.js';
import { isFailure } from '../../agentstack/journal/summary.js';
import type { JournalRecord } from '../../agentstack/journal/record.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30m`, `2h`, `1d`, `1w` in milliseconds; throws `invalid_config` for anything else. */
export function parseSince(value: string): number {
  const m = /^\s*(\d{1,6})\s*([mhdw])\s*$/i.exec(value);
  if (!m || Number(m[1]) === 0) throw new PluginError('invalid_config', `--since takes a span such as 30m, 2h, 1d or 1w (got ${JSON.stringify(value.slice(0, 40))})`);
  return Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 10_000;

/** A positive integer up to MAX_LIMIT; throws `invalid_config` for anything else. */
export function parseLimit(value: string): number {
  const n = /^\s*\d{1,6}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw new PluginError('invalid_config', `--limit takes a whole number from 1 to ${MAX_LIMIT} (got ${JSON.stringify(value.slice(0, 40))})`);
  return n;
}

export interface ActivityQuery {
  now: number;
  sinceMs?: number;
  /** A glob over action names (`projects.*`): a record with any step matching it. */
  action?: string;
  failed?: boolean;
  limit?: number;
}

export interface QueryResult {
  /** Newest first, at most `limit`. */
  shown: JournalRecord[];
  /** How many records matched before the limit. */
  matched: number;
}

export function queryRecords(records: readonly JournalRecord[], query: ActivityQuery): QueryResult {
  const from = query.sinceMs === undefined ? -Infinity : query.now - query.sinceMs;
  const matching = records.filter((r) => {
    if (Date.parse(r.at) < from) return false;
    if (query.failed && !isFailure(r)) return false;
    return query.action === undefined || r.steps.some((s) => globMatches(query.action!, s.action));
  });
  // Oldest first on disk (the rotated file, then the current one); a stable sort by time keeps ties in that order.
  const newest = matching.map((r, i) => ({ r, i, t: Date.parse(r.at) })).sort((a, b) => b.t - a.t || b.i - a.i).map((x) => x.r);
  return { shown: newest.slice(0, query.limit ?? DEFAULT_LIMIT), matched: matching.length };
}
