/** `activity`: reads the journal, picks the records asked for, renders them. No network, no write. */
import { readJournal } from '../../agentstack/journal/file.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import { journalOn } from '../../agentstack/settings/keys.js';
import { tilde } from '../../platform/text/tilde.js';
import { queryRecords, type ActivityQuery } from './query.js';
import { renderActivityJson, renderActivityTable } from './render.js';

export interface ActivityOptions extends Omit<ActivityQuery, 'now'> {
  json: boolean;
  env?: NodeJS.ProcessEnv;
  now?: number;
}

export function runActivity(options: ActivityOptions): { stdout: string; code: number } {
  const env = options.env ?? process.env;
  const settings = applySettings(env);
  const path = cursorPaths(env).journal;
  const read = readJournal(path);
  const { shown, matched } = queryRecords(read.records, { ...options, now: options.now ?? Date.now() });
  const facts = { shown, matched, total: read.records.length, path: tilde(path), enabled: journalOn(settings.env), problems: [...settings.problems, ...read.problems], skipped: read.skipped };
  return { stdout: options.json ? renderActivityJson({ ...facts, journal: path }) : renderActivityTable(facts), code: 0 };
}
