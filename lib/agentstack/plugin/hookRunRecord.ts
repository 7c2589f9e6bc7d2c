/**
 * A hook's run record (agentstack-hook-runs.json), pure: its fields as recorded (printable, clipped) and whether a new
 * run says something the last record does not. The hooks' fast paths import this alone.
 */
import { isObject } from '../../platform/text/isObject.js';

export const HOOK_NAMES = ['session-start', 'pre-mcp'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

export interface HookRunRecord {
  at: string;
  cursor_version: string | null;
  composer_mode: string | null;
  plugin_version: string;
  outcome: string;
  /** pre-MCP only: what the last AgentStack call named that the hook does not know (a tool, keys), else null. */
  unknown_form: string | null;
}

export type HookRuns = Partial<Record<HookName, HookRunRecord>>;

const MAX_FIELD = 40;

/** How stale a record's time may be before a run with the same facts rewrites it. */
export const HOOK_RUN_RESOLUTION_MS = 60_000;

/** A field as recorded: printable ASCII only, clipped; null when there is nothing printable. */
function field(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // The pattern only for a value that needs it: the hooks' fast paths read a record on every run, and compiling it
  // cost them ~0.1 ms.
  let printable = true;
  for (let i = 0; i < value.length && printable; i++) printable = value.charCodeAt(i) >= 0x20 && value.charCodeAt(i) <= 0x7e;
  const text = (printable ? value : value.replace(/[^\x20-\x7e]/g, '')).trim().slice(0, MAX_FIELD);
  return text || null;
}

/** What a run says: every field of its record but the time. */
export type HookRunFacts = Omit<HookRunRecord, 'at'>;

/** A run's facts as recorded, from a record or a hook's own values. */
export function factsOf(value: Record<string, unknown>): HookRunFacts {
  return {
    cursor_version: field(value.cursor_version),
    composer_mode: field(value.composer_mode),
    plugin_version: field(value.plugin_version) ?? 'unknown',
    outcome: field(value.outcome) ?? 'unknown',
    unknown_form: field(value.unknown_form),
  };
}

export function recordOf(value: unknown): HookRunRecord | null {
  if (!isObject(value)) return null;
  const at = field(value.at);
  if (at === null || !Number.isFinite(Date.parse(at))) return null;
  return { at, ...factsOf(value) };
}

/**
 * Whether a run at `atMs` (epoch ms) saying `next` must replace `previous`: it says something new (a different
 * Cursor, mode, plugin version, outcome or unknown form), or the recorded time is a minute old or more, or in the
 * future (a clock set back). A time, not a record: the hooks' fast paths decide without formatting one.
 */
export function recordChanged(previous: HookRunRecord | undefined, next: HookRunFacts, atMs: number): boolean {
  if (!previous) return true;
  const age = Math.trunc(atMs) - Date.parse(previous.at);
  return !(age >= 0 && age < HOOK_RUN_RESOLUTION_MS)
    || previous.cursor_version !== next.cursor_version
    || previous.composer_mode !== next.composer_mode
    || previous.plugin_version !== next.plugin_version
    || previous.outcome !== next.outcome
    || previous.unknown_form !== next.unknown_form;
}
