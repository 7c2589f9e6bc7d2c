/**
 * What the journal's records say, pure: whether a record failed, who stopped a call and why, and the counts
 * `diagnose-local --report` shows (counts only: no action is named but a failing one).
 */
import type { JournalRecord } from './record.js';

/** A call that ran and failed (any step, or the call), or one the pre-MCP hook denied. An `ask` is not a failure. */
export function isFailure(record: JournalRecord): boolean {
  return record.hook === 'after' ? record.error : record.decision === 'deny';
}

/** Who answered `deny` or `ask`: the person's own rules, or the plugin's checks; and the kinds, as recorded. */
export function stoppedBy(reasons: readonly string[]): string {
  const rules = reasons.filter((r) => r.startsWith('rule:')).map((r) => r.slice('rule:'.length));
  if (reasons.includes('rules_unreadable')) rules.push('unreadable');
  const plugin = reasons.filter((r) => !r.startsWith('rule:') && r !== 'rules_unreadable');
  const parts: string[] = [];
  if (rules.length) parts.push(`your rules (${[...new Set(rules)].join(', ')})`);
  if (plugin.length) parts.push(`the plugin (${plugin.join(', ')})`);
  return parts.join(' and ') || 'the plugin';
}

/** The steps of a call that ran that did not end `ok`, as `action code`. */
export function failedSteps(record: JournalRecord): string[] {
  if (record.hook !== 'after') return [];
  return record.steps.filter((s) => s.outcome !== undefined && s.outcome !== 'ok').map((s) => `${s.action} ${s.outcome}`);
}

export interface JournalCounts {
  /** Calls that ran (after records). */
  calls: number;
  failed: number;
  denied: number;
  asked: number;
  /** ISO time of the oldest and newest record, or null with none. */
  since: string | null;
  until: string | null;
  /** Each failing action with its code, and how often, most frequent first (at most `maxFailing`). */
  failing: Array<{ action: string; outcome: string; count: number }>;
}

export function journalCounts(records: readonly JournalRecord[], maxFailing = 10): JournalCounts {
  const counts: JournalCounts = { calls: 0, failed: 0, denied: 0, asked: 0, since: null, until: null, failing: [] };
  const failing = new Map<string, { action: string; outcome: string; count: number }>();
  for (const record of records) {
    if (counts.since === null || record.at < counts.since) counts.since = record.at;
    if (counts.until === null || record.at > counts.until) counts.until = record.at;
    if (record.hook === 'pre') {
      if (record.decision === 'deny') counts.denied += 1;
      else counts.asked += 1;
      continue;
    }
    counts.calls += 1;
    if (record.error) counts.failed += 1;
    for (const step of record.steps) {
      if (step.outcome === undefined || step.outcome === 'ok' || step.outcome === 'skipped') continue;
      const key = `${step.action}\n${step.outcome}`;
      const seen = failing.get(key) ?? { action: step.action, outcome: step.outcome, count: 0 };
      seen.count += 1;
      failing.set(key, seen);
    }
  }
  counts.failing = [...failing.values()].sort((a, b) => b.count - a.count || a.action.localeCompare(b.action)).slice(0, maxFailing);
  return counts;
}
