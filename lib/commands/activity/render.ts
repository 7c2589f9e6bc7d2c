/** How `activity` shows the journal: a table a person reads (time, actions, outcome, who stopped a call), or JSON. Pure. */
import type { JournalRecord } from '../../agentstack/journal/record.js';
import { failedSteps, stoppedBy } from '../../agentstack/journal/summary.js';
import { displayText } from '../../platform/text/displayText.js';
import { CONFIG_COMMAND } from '../../agentstack/state/story.js';

const MAX_ACTIONS_SHOWN = 3;

/** Local time as `YYYY-MM-DD HH:MM:SS`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export function actionsText(record: JournalRecord): string {
  const actions = [...new Set(record.steps.map((s) => s.action))];
  const more = actions.length - MAX_ACTIONS_SHOWN + (record.more_steps ?? 0);
  const shown = actions.slice(0, MAX_ACTIONS_SHOWN).join(', ') || '(steps unknown)';
  return more > 0 ? `${shown} +${more} more` : shown;
}

/** What happened to the call, in a few words. */
export function outcomeText(record: JournalRecord): string {
  if (record.hook === 'pre') return `${record.decision === 'deny' ? 'denied' : 'asked'} by ${stoppedBy(record.reasons)}`;
  const took = record.duration_ms !== undefined ? ` (${record.duration_ms} ms)` : '';
  if (record.unreadable) return `ran; outcome unknown (the hook could not read the call: ${record.unreadable})${took}`;
  const failed = failedSteps(record);
  if (!record.error && failed.length === 0) return `ok${took}`;
  const what = failed.length ? failed.slice(0, 2).join('; ') + (failed.length > 2 ? `; +${failed.length - 2} more` : '') : record.code ?? 'error';
  return `failed: ${what}${took}`;
}

export interface TableFacts {
  shown: readonly JournalRecord[];
  matched: number;
  total: number;
  /** Where the journal lives, as shown (`~/…`). */
  path: string;
  enabled: boolean;
  problems: readonly string[];
  skipped: number;
}

export function renderActivityTable(facts: TableFacts): string {
  const lines: string[] = [];
  if (facts.shown.length) {
    const servers = new Set(facts.shown.map((r) => r.server));
    const rows = facts.shown.map((r) => [localTime(r.at), ...(servers.size > 1 ? [r.server] : []), actionsText(r), outcomeText(r)].map((c) => displayText(c, 200)));
    const head = ['TIME', ...(servers.size > 1 ? ['SERVER'] : []), 'ACTIONS', 'OUTCOME'];
    const widths = head.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((row) => row[i]!.length))));
    const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
    lines.push(line(head), ...rows.map(line), '');
    const of = facts.matched > facts.shown.length ? `${facts.shown.length} of ${facts.matched} matching` : `${facts.shown.length} matching`;
    lines.push(`${of} (${facts.total} in the journal, ${facts.path}); newest first. --json gives every field.`);
  } else if (facts.total === 0) {
    lines.push(`No AgentStack call recorded yet (${facts.path}).`);
  } else {
    lines.push(`No record matches (${facts.total} in the journal, ${facts.path}).`);
  }
  if (!facts.enabled) lines.push(`! The journal is off: nothing new is recorded. Turn it on with: ${CONFIG_COMMAND} set journal on`);
  if (facts.skipped) lines.push(`! ${facts.skipped} line(s) of the journal are not records and were skipped.`);
  for (const problem of facts.problems) lines.push(`! ${problem}`);
  return `${lines.join('\n')}\n`;
}

export function renderActivityJson(facts: TableFacts & { journal: string }): string {
  return `${JSON.stringify({
    journal: facts.journal,
    enabled: facts.enabled,
    total: facts.total,
    matched: facts.matched,
    records: facts.shown,
    skipped_lines: facts.skipped,
    problems: facts.problems,
  }, null, 2)}\n`;
}
