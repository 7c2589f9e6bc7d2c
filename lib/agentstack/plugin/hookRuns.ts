/**
 * `agentstack-hook-runs.json`: when each of the plugin's hooks last ran, so diagnose-local (and support) can tell
 * whether Cursor runs them at all. One record per hook, replacing the last: time, the Cursor version and composer
 * mode from the hook's input, the plugin version, and the outcome in a word. No secret; 0600 like every plugin file;
 * replaced atomically without fsync (a record lost in a crash is rewritten by the next run); a bounded size (known
 * hooks only, every field clipped). Recording never fails a hook. A run that would only move the time of a record
 * written less than a minute ago leaves the file alone: an agent's burst of execute calls then pays one read per call,
 * not a write and a rename (0.5 to 2 ms of a ~35 ms hook run), and the time shown is at most a minute old.
 */
import { readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { isObject } from '../../platform/text/isObject.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

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
  const text = value.replace(/[^\x20-\x7e]/g, '').trim().slice(0, MAX_FIELD);
  return text || null;
}

function recordOf(value: unknown): HookRunRecord | null {
  if (!isObject(value)) return null;
  const at = field(value.at);
  if (at === null || !Number.isFinite(Date.parse(at))) return null;
  return {
    at,
    cursor_version: field(value.cursor_version),
    composer_mode: field(value.composer_mode),
    plugin_version: field(value.plugin_version) ?? 'unknown',
    outcome: field(value.outcome) ?? 'unknown',
    unknown_form: field(value.unknown_form),
  };
}

/** The records as read: a missing or unreadable file is no record, a bad record is skipped (the others stay). */
export function readHookRuns(path: string): HookRuns {
  let value: unknown;
  try {
    value = JSON.parse(readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.hookRuns }) ?? '{}');
  } catch {
    return {};
  }
  const runs: HookRuns = {};
  if (!isObject(value)) return runs;
  for (const name of HOOK_NAMES) {
    const record = recordOf(value[name]);
    if (record) runs[name] = record;
  }
  return runs;
}

export interface HookRunInput {
  now: number;
  /** The hook's stdin as parsed (its `cursor_version` and `composer_mode` are recorded), or null. */
  input: Record<string, unknown> | null;
  pluginVersion: string;
  outcome: string;
  unknownForm?: string | null;
}

/**
 * Whether `next` must replace `previous`: it says something new (a different Cursor, mode, plugin version, outcome
 * or unknown form),
 * or the recorded time is a minute old or more, or in the future (a clock set back).
 */
export function recordChanged(previous: HookRunRecord | undefined, next: HookRunRecord): boolean {
  if (!previous) return true;
  const age = Date.parse(next.at) - Date.parse(previous.at);
  return !(age >= 0 && age < HOOK_RUN_RESOLUTION_MS)
    || previous.cursor_version !== next.cursor_version
    || previous.composer_mode !== next.composer_mode
    || previous.plugin_version !== next.plugin_version
    || previous.outcome !== next.outcome
    || previous.unknown_form !== next.unknown_form;
}

/** Records this run of `hook` (see recordChanged); false (never a throw) when the file cannot be written. */
export function recordHookRun(path: string, hook: HookName, run: HookRunInput): boolean {
  try {
    const record = recordOf({
      at: new Date(run.now).toISOString(),
      cursor_version: run.input?.cursor_version,
      composer_mode: run.input?.composer_mode,
      plugin_version: run.pluginVersion,
      outcome: run.outcome,
      unknown_form: run.unknownForm,
    })!;
    const previous = readHookRuns(path);
    if (!recordChanged(previous[hook], record)) return true;
    const runs = { ...previous, [hook]: record };
    writeFileAtomic(path, `${JSON.stringify(runs)}\n`, { durable: false });
    return true;
  } catch {
    return false;
  }
}
