/**
 * The activity journal's file: 0600 from creation, bounded (1 MiB, then `.1`), never written through a symlink or
 * into a FIFO, a file over its read cap left unread and said so, a damaged line skipped and counted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_MAX_BYTES, appendJournalRecord, readJournal, removeJournal } from '../../lib/agentstack/journal/file.js';
import { appendIfOn } from '../../lib/agentstack/journal/hookAppend.js';
import { afterRecord, recordLine, type JournalRecord } from '../../lib/agentstack/journal/record.js';
import { STATE_FILE_MAX_BYTES } from '../../lib/agentstack/server/fileLimits.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { rotatedPath } from '../../lib/platform/fs/rotatingLog.js';
import { IS_WINDOWS, PRIVATE_MODE, WINDOWS_SKIPS } from '../helpers/platform.js';
import { tempDir } from '../helpers/repo.js';

let dir: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  dir = tempDir('agentstack-journal-');
  path = cursorPaths({ AGENTSTACK_CURSOR_DIR: join(dir.path, 'cursor') }).journal;
});
afterEach(() => dir.cleanup());

const STEPS = ['projects.list', 'projects.get', 'projects.create', 'data.query', 'data.write', 'actions.list', 'actions.describe', 'system.ping'].map((action, i) => ({ id: String(i + 1), action }));
const call = (n: number): JournalRecord => afterRecord({
  now: Date.parse('2026-09-01T00:00:00Z') + n * 1_000, server: 'user-agentstack', conversationId: `conversation-${n}`, duration: n,
  toolInput: { steps: STEPS }, resultJson: { structuredContent: { ok: true, results: STEPS.map((s) => ({ id: s.id, ok: true })) } },
});

describe('the journal file', () => {
  it('is created 0600 (its folder too), one record per line', () => {
    appendJournalRecord(path, call(1));
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    expect(readFileSync(path, 'utf8')).toBe(recordLine(call(1)));
    expect(readJournal(path)).toEqual({ records: [call(1)], skipped: 0, problems: [] });
  });

  it('5,000 calls leave each of its two files under the bound, the newest kept in order', () => {
    const size = Buffer.byteLength(recordLine(call(0)));
    for (let n = 0; n < 5_000; n++) appendJournalRecord(path, call(n));
    // About 3 MiB were written: the file rotated more than once, and only the last two files' worth is kept.
    expect(size * 5_000).toBeGreaterThan(2.5 * JOURNAL_MAX_BYTES);
    expect(statSync(path).size).toBeLessThanOrEqual(JOURNAL_MAX_BYTES);
    expect(statSync(rotatedPath(path)).size).toBeLessThanOrEqual(JOURNAL_MAX_BYTES);
    expect(existsSync(`${path}.2`)).toBe(false);
    const { records, skipped } = readJournal(path);
    expect(skipped).toBe(0);
    expect(records.at(-1)).toEqual(call(4_999));
    // Oldest first and contiguous: nothing between the first kept and the last is missing.
    const first = 5_000 - records.length;
    expect(records.map((r) => r.at)).toEqual(Array.from({ length: records.length }, (_, i) => call(first + i).at));
    expect(records.length).toBeGreaterThan(JOURNAL_MAX_BYTES / size);
  });

  it.skipIf(IS_WINDOWS)(`a symlink in its place is never written through (${WINDOWS_SKIPS.symlink}); a FIFO never blocks`, () => {
    const target = join(dir.path, 'elsewhere');
    writeFileSync(target, 'keep', { mode: 0o644 });
    appendJournalRecord(path, call(0));
    const lines: string[] = [];
    const env = { AGENTSTACK_CURSOR_DIR: join(dir.path, 'cursor') };
    spawnSync('rm', [path]);
    symlinkSync(target, path);
    expect(appendIfOn(call(1), { env, log: (m) => lines.push(m) })).toBe('failed');
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(target).mode & 0o777).toBe(0o644);
    spawnSync('rm', [path]);
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    expect(appendIfOn(call(2), { env, log: (m) => lines.push(m) })).toBe('failed');
    expect(lines).toEqual(['the activity journal was not written (ENOTREGULAR)', 'the activity journal was not written (ENOTREGULAR)']);
    expect(readJournal(path).problems).toEqual([`${path} was not read: it is not a regular file.`]);
  });

  it('a file over its read cap is left unread and named; the other file is still read', () => {
    appendJournalRecord(path, call(1));
    writeFileSync(rotatedPath(path), 'x'.repeat(STATE_FILE_MAX_BYTES.journal + 1));
    const read = readJournal(path);
    expect(read.records).toEqual([call(1)]);
    expect(read.problems).toEqual([`${rotatedPath(path)} was not read: it is larger than ${STATE_FILE_MAX_BYTES.journal} bytes.`]);
  });

  it('an oversized file in its place is rotated away by the next append: the journal goes on within its bound', () => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'y'.repeat(5 * JOURNAL_MAX_BYTES), { mode: 0o600 });
    appendJournalRecord(path, call(1));
    expect(readFileSync(path, 'utf8')).toBe(recordLine(call(1)));
  });

  it('a damaged or planted line is skipped and counted, the records around it kept', () => {
    appendJournalRecord(path, call(1));
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"v":1,"at":"cut sh\nnot json at all\n${recordLine(call(2))}`);
    expect(readJournal(path)).toMatchObject({ records: [call(1), call(2)], skipped: 2 });
  });

  it('off means nothing is written; removal takes both files', () => {
    const env = { AGENTSTACK_CURSOR_DIR: join(dir.path, 'cursor'), AGENTSTACK_JOURNAL: 'off' };
    expect(appendIfOn(call(1), { env, log: () => {} })).toBe('off');
    expect(existsSync(path)).toBe(false);
    appendJournalRecord(path, call(1));
    writeFileSync(rotatedPath(path), recordLine(call(0)));
    expect(removeJournal(path)).toBe(2);
    expect(existsSync(path) || existsSync(rotatedPath(path))).toBe(false);
    expect(removeJournal(path)).toBe(0);
  });
});
