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
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';
import { isObject } from '../../platform/text/isObject.js';
import { isoTime } from '../../platform/isoTime.js';
import { HOOK_NAMES, factsOf, recordChanged, recordOf, type HookName, type HookRuns } from './hookRunRecord.js';

export { HOOK_NAMES, HOOK_RUN_RESOLUTION_MS, recordChanged, type HookName, type HookRunRecord, type HookRuns } from './hookRunRecord.js';

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

/** Records this run of `hook` (see recordChanged); false (never a throw) when the file cannot be written. */
export function recordHookRun(path: string, hook: HookName, run: HookRunInput): boolean {
  try {
    const facts = factsOf({
      cursor_version: run.input?.cursor_version,
      composer_mode: run.input?.composer_mode,
      plugin_version: run.pluginVersion,
      outcome: run.outcome,
      unknown_form: run.unknownForm,
    });
    const previous = readHookRuns(path);
    if (!recordChanged(previous[hook], facts, run.now)) return true;
    const runs = { ...previous, [hook]: { at: isoTime(run.now), ...facts } };
    writeFileAtomic(path, `${JSON.stringify(runs)}\n`, { durable: false });
    return true;
  } catch {
    return false;
  }
}
