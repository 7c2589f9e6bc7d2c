/**
 * The PASS / WARN / FAIL report shared by verify-mcp-surface-e2e and diagnose-local: a check list, a readable table,
 * a JSON document, and the exit code (1 on any FAIL). Pure functions; the entries do the printing.
 */
import { displayText } from './text/displayText.js';

export type CheckStatus = 'PASS' | 'WARN' | 'FAIL';

export type Check = {
  id: string;
  status: CheckStatus;
  /** One line: what was found. */
  summary: string;
  /** One line: what to do about it (shown for WARN and FAIL). */
  fix?: string;
  /** Machine-readable evidence for --json; never a secret. */
  details?: unknown;
};

export function pass(id: string, summary: string, details?: unknown): Check {
  return details === undefined ? { id, status: 'PASS', summary } : { id, status: 'PASS', summary, details };
}

export function warn(id: string, summary: string, fix?: string, details?: unknown): Check {
  return withOptional({ id, status: 'WARN', summary }, fix, details);
}

export function fail(id: string, summary: string, fix?: string, details?: unknown): Check {
  return withOptional({ id, status: 'FAIL', summary }, fix, details);
}

function withOptional(check: Check, fix?: string, details?: unknown): Check {
  if (fix) check.fix = fix;
  if (details !== undefined) check.details = details;
  return check;
}

export type ReportCounts = Record<CheckStatus, number>;

export function countChecks(checks: readonly Check[]): ReportCounts {
  const counts: ReportCounts = { PASS: 0, WARN: 0, FAIL: 0 };
  for (const c of checks) counts[c.status] += 1;
  return counts;
}

/** 1 when any check failed, else 0 (warnings do not fail a run). */
export function exitCodeFor(checks: readonly Check[]): 0 | 1 {
  return checks.some((c) => c.status === 'FAIL') ? 1 : 0;
}

/** Rows quote servers and files: no control, bidi or zero-width character reaches the terminal. */
const oneLine = (s: string) => displayText(s, 2_000);

/**
 * A plain-text table: one row per check (`PASS  id  summary`), the fix indented under WARN/FAIL rows,
 * then a totals line. No colours, so it reads the same in a terminal, a CI log and a support ticket.
 */
export function renderTable(title: string, checks: readonly Check[]): string {
  const idWidth = Math.min(36, Math.max(5, ...checks.map((c) => c.id.length)));
  const lines = [title, ''];
  for (const c of checks) {
    lines.push(`${c.status.padEnd(4)}  ${c.id.padEnd(idWidth)}  ${oneLine(c.summary)}`);
    if (c.fix && c.status !== 'PASS') lines.push(`${' '.repeat(6 + idWidth)}  -> ${oneLine(c.fix)}`);
  }
  const n = countChecks(checks);
  lines.push('', `${n.PASS} passed, ${n.WARN} warning${n.WARN === 1 ? '' : 's'}, ${n.FAIL} failed`);
  return `${lines.join('\n')}\n`;
}

export type JsonReport = { title: string; ok: boolean; counts: ReportCounts; checks: Check[]; [extra: string]: unknown };

/** `durationMs` -> `duration_ms`, at every depth; keys that are not plain camelCase words stay as they are. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = /^[a-z][a-zA-Z0-9]*$/.test(key) ? key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : key;
    out[name] = snakeCaseKeys(inner);
  }
  return out;
}

/**
 * The --json document: stable keys `title`, `ok`, `counts`, `checks`, plus whatever the caller adds, its keys in
 * snake_case like every other field the scripts print.
 */
export function renderJson(title: string, checks: readonly Check[], extra: Record<string, unknown> = {}): string {
  const shown = checks.map((c) => ({ ...c, summary: oneLine(c.summary), ...(c.fix === undefined ? {} : { fix: oneLine(c.fix) }) }));
  const doc: JsonReport = { title, ok: exitCodeFor(checks) === 0, counts: countChecks(checks), checks: shown, ...(snakeCaseKeys(extra) as Record<string, unknown>) };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
