/**
 * A hook's append to the activity journal where the settings decide whether it is on (the gate's deny, which knows
 * that already, appends with appendLogged alone and so loads no settings code).
 */
import { cursorPaths } from '../server/paths.js';
import { journalOn } from '../settings/keys.js';
import { appendLogged } from './file.js';
import type { JournalRecord } from './record.js';

/**
 * A hook's append: nothing when the journal is off (`env` with the settings applied), and never a throw (a hook must
 * not fail for its journal): a failure is one log line.
 */
export function appendIfOn(record: JournalRecord, options: { env: NodeJS.ProcessEnv; log: (message: string) => void }): 'recorded' | 'off' | 'failed' {
  if (!journalOn(options.env)) return 'off';
  return appendLogged(record, { path: cursorPaths(options.env).journal, log: options.log });
}
