import { describe, expect, it } from 'vitest';
import { afterRecord, preRecord, type JournalRecord } from '../../lib/agentstack/journal/record.js';
import { parseLimit, parseSince, queryRecords } from '../../lib/commands/activity/query.js';
import { actionsText, outcomeText, renderActivityJson, renderActivityTable } from '../../lib/commands/activity/render.js';

const NOW = Date.parse('2026-09-01T12:00:00.000Z');
const HOUR = 3_600_000;
const ok = (at: number, action: string): JournalRecord =>
  afterRecord({ now: at, server: 'user-agentstack', toolInput: { steps: [{ id: '1', action }] }, resultJson: { structuredContent: { ok: true, results: [{ id: '1', ok: true }] } }, duration: 80 });
const failed = (at: number): JournalRecord =>
  afterRecord({ now: at, server: 'user-agentstack', toolInput: { steps: [{ id: '1', action: 'projects.list' }, { id: '2', action: 'data.write' }] }, resultJson: { isError: true, structuredContent: { ok: false, results: [{ id: '1', ok: true }, { id: '2', ok: false, error: { code: 'missing_capability' } }] } } });
const denied = (at: number): JournalRecord => preRecord({ now: at, server: 'user-agentstack', toolInput: { steps: [{ id: '1', action: 'projects.delete' }] }, decision: 'deny', reasons: ['rule:deny-actions'] });
const asked = (at: number): JournalRecord => preRecord({ now: at, server: 'plugin-agentstack-agentstack', toolInput: { steps: [{ id: '1', action: 'data.write' }] }, decision: 'ask', reasons: ['unapproved_action'] });

// Oldest first, as the file holds them.
const records = [ok(NOW - 30 * HOUR, 'system.ping'), denied(NOW - 3 * HOUR), failed(NOW - HOUR), asked(NOW - 30 * 60_000), ok(NOW - 60_000, 'projects.get')];

describe('activity: which records', () => {
  it('newest first, at most --limit, counting what matched', () => {
    const all = queryRecords(records, { now: NOW });
    expect(all.shown.map((r) => r.at)).toEqual([...records].reverse().map((r) => r.at));
    expect(queryRecords(records, { now: NOW, limit: 2 })).toMatchObject({ matched: 5, shown: [records[4], records[3]] });
  });

  it('--since, --action (a glob, any step) and --failed (failed or denied, not asked)', () => {
    expect(queryRecords(records, { now: NOW, sinceMs: parseSince('2h') }).shown).toEqual([records[4], records[3], records[2]]);
    expect(queryRecords(records, { now: NOW, action: 'DATA.*' }).shown).toEqual([records[3], records[2]]);
    expect(queryRecords(records, { now: NOW, failed: true }).shown).toEqual([records[2], records[1]]);
    expect(queryRecords(records, { now: NOW, failed: true, sinceMs: parseSince('90m') }).matched).toBe(1);
  });

  it('--since and --limit refuse what they cannot read', () => {
    expect(parseSince('30m')).toBe(30 * 60_000);
    expect(parseSince('1w')).toBe(7 * 24 * HOUR);
    for (const bad of ['2', 'h', '0h', '-1d', '2 days', '1y']) expect(() => parseSince(bad), bad).toThrow(/--since takes a span/);
    expect(parseLimit('5')).toBe(5);
    for (const bad of ['0', '-3', 'ten', '1.5', '10001']) expect(() => parseLimit(bad), bad).toThrow(/--limit takes a whole number/);
  });
});

describe('activity: the table', () => {
  it('says what happened in words: ok with the time taken, the failing step and its code, who denied or asked', () => {
    expect(outcomeText(records[0]!)).toBe('ok (80 ms)');
    expect(outcomeText(records[2]!)).toBe('failed: data.write missing_capability');
    expect(outcomeText(records[1]!)).toBe('denied by your rules (deny-actions)');
    expect(outcomeText(records[3]!)).toBe('asked by the plugin (unapproved_action)');
    const many = afterRecord({ now: NOW, server: 's', toolInput: { steps: ['a.a', 'b.b', 'c.c', 'd.d', 'a.a'].map((action, i) => ({ id: String(i), action })) }, resultJson: null });
    expect(actionsText(many)).toBe('a.a, b.b, c.c +1 more');
  });

  it('one row per record with both actions and the code, a SERVER column only when two servers appear, and what to do next', () => {
    const facts = { matched: 3, total: 5, path: '~/.cursor/agentstack-journal.jsonl', enabled: true, problems: [], skipped: 0 };
    const one = renderActivityTable({ ...facts, shown: [records[2]!, records[1]!] });
    const lines = one.split('\n');
    expect(lines[0]).toMatch(/^TIME\s+ACTIONS\s+OUTCOME$/);
    expect(lines[1]).toMatch(/projects\.list, data\.write\s+failed: data\.write missing_capability$/);
    expect(lines[2]).toMatch(/projects\.delete\s+denied by your rules \(deny-actions\)$/);
    expect(one).toContain('2 of 3 matching (5 in the journal, ~/.cursor/agentstack-journal.jsonl)');
    const two = renderActivityTable({ ...facts, shown: [records[3]!, records[2]!] });
    expect(two.split('\n')[0]).toMatch(/^TIME\s+SERVER\s+ACTIONS\s+OUTCOME$/);
    expect(two).toContain('plugin-agentstack-agentstack');
  });

  it('an empty journal, a journal turned off, and the lines it could not read are said', () => {
    const facts = { shown: [], matched: 0, path: '~/j', problems: ['~/j.1 was not read: it is not a regular file.'], skipped: 2 };
    expect(renderActivityTable({ ...facts, total: 0, enabled: true })).toMatch(/^No AgentStack call recorded yet \(~\/j\)\.\n! 2 line\(s\)[^\n]+\n! ~\/j\.1 was not read/);
    expect(renderActivityTable({ ...facts, total: 4, enabled: false })).toMatch(/^No record matches \(4 in the journal, ~\/j\)\.\n! The journal is off[^\n]+config\.mjs set journal on/);
  });

  it('--json: one document with every field of each record', () => {
    const doc = JSON.parse(renderActivityJson({ shown: [records[2]!], matched: 1, total: 5, path: '~/j', journal: '/home/x/j', enabled: true, problems: [], skipped: 0 }));
    expect(doc).toEqual({ journal: '/home/x/j', enabled: true, total: 5, matched: 1, records: [records[2]], skipped_lines: 0, problems: [] });
  });
});
