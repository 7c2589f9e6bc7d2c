/** How `config list` and `get` show settings: a table like `git config --show-origin`, or JSON. Pure. */
import type { SettingRow } from '../../agentstack/settings/effective.js';
import { tilde } from '../../platform/text/tilde.js';

/** Where a value comes from; a file under the home folder is shown as `~/…`. */
export function originText(row: SettingRow): string {
  return row.source ? `${row.origin} (${tilde(row.source)})` : row.origin;
}

/** One row per key: name, value (`-` when none), origin; problems after, one `!` line each. */
export function renderSettingsTable(rows: readonly SettingRow[], problems: readonly string[] = []): string {
  const keyWidth = Math.max(...rows.map((r) => r.key.length));
  const valueWidth = Math.min(48, Math.max(5, ...rows.map((r) => (r.value ?? '-').length)));
  const lines = rows.map((r) => `${r.key.padEnd(keyWidth)}  ${(r.value ?? '-').padEnd(valueWidth)}  ${originText(r)}`);
  for (const p of problems) lines.push(`! ${p}`);
  return `${lines.join('\n')}\n`;
}

export function rowJson(row: SettingRow): Record<string, unknown> {
  return { key: row.key, value: row.value, origin: row.origin, source: row.source === null ? null : tilde(row.source), ...(row.problem ? { problem: row.problem } : {}) };
}
