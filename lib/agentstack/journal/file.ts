/**
 * The activity journal on disk: `agentstack-journal.jsonl` under the Cursor dir, one JSON record per line, 0600 from
 * creation. Each record is appended in one write (O_APPEND), so hooks running at once never interleave and none is
 * lost; past JOURNAL_MAX_BYTES the file becomes `.1` (replacing the one before) and a new one begins, so at most about
 * twice the bound is kept. A symlink, a FIFO or any other non-file in its place is refused, never written through; a
 * file over its read cap is left unread and said so.
 */
import { appendRotating, rotatedPath } from '../../platform/fs/rotatingLog.js';
import { removeIfExists } from '../../platform/fs/secureFile.js';
import { readStateFileIfExists } from '../../platform/fs/stateFile.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';
import { parseRecordLine, recordLine, type JournalRecord } from './record.js';

export const JOURNAL_MAX_BYTES = 1024 * 1024;

/** Appends one record. Throws what the file system throws (`ENOTREGULAR` for a link or a FIFO in the file's place). */
export function appendJournalRecord(path: string, record: JournalRecord): void {
  appendRotating(path, recordLine(record), { maxBytes: JOURNAL_MAX_BYTES });
}

export interface JournalRead {
  /** Oldest first: the rotated file's records, then the current file's. */
  records: JournalRecord[];
  /** Lines that are not a record (a planted or damaged line). */
  skipped: number;
  /** One line per file that could not be read, and why. */
  problems: string[];
}

/** The journal's files, oldest first. */
export function journalFiles(path: string): string[] {
  return [rotatedPath(path), path];
}

export function readJournal(path: string): JournalRead {
  const out: JournalRead = { records: [], skipped: 0, problems: [] };
  for (const file of journalFiles(path)) {
    let bytes: Buffer | null;
    try {
      bytes = readStateFileIfExists(file, { maxBytes: STATE_FILE_MAX_BYTES.journal });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const why = code === 'EFBIG' ? `it is larger than ${STATE_FILE_MAX_BYTES.journal} bytes` : code === 'ENOTREGULAR' || code === 'EISDIR' ? 'it is not a regular file' : code;
      out.problems.push(`${file} was not read: ${why}.`);
      continue;
    }
    if (bytes === null) continue;
    for (const line of bytes.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      const record = parseRecordLine(line);
      if (record) out.records.push(record);
      else out.skipped += 1;
    }
  }
  return out;
}

/** Removes the journal and its rotated file; how many files there were. */
export function removeJournal(path: string): number {
  return journalFiles(path).filter((file) => removeIfExists(file)).length;
}

/** A hook's append to the journal at `path`, known to be on: never a throw, a failure is one log line. */
export function appendLogged(record: JournalRecord, options: { path: string; log: (message: string) => void }): 'recorded' | 'failed' {
  try {
    appendJournalRecord(options.path, record);
    return 'recorded';
  } catch (error) {
    options.log(`the activity journal was not written (${(error as NodeJS.ErrnoException).code ?? (error as Error).name})`);
    return 'failed';
  }
}
