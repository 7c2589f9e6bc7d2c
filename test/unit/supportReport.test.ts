/** diagnose-local --report as a pure renderer: what it shows, how it fences what it quotes, and that it scrubs. */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatherReportFacts, renderReport, type ReportFacts } from '../../lib/commands/diagnose/report.js';
import { appendJournalRecord } from '../../lib/agentstack/journal/file.js';
import { afterRecord, preRecord } from '../../lib/agentstack/journal/record.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { tempDir } from '../helpers/repo.js';
import { fail, pass } from '../../lib/platform/report.js';
import { findLeaks } from '../helpers/secretScan.js';

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.body-0123456789abcdef.sig';
const paths = { deviceLog: '/c/agentstack-device.log', debugLog: '/c/agentstack-debug.log' };

function facts(over: Partial<ReportFacts> = {}): ReportFacts {
  return {
    pluginVersion: '9.9.9', pluginRoot: '/p', nodeVersion: 'v20.0.0', os: 'linux 6 x64', cursorVersion: '2.1.0', title: 'AgentStack diagnosis',
    checks: [pass('node', 'Node 20'), fail('mcp.entry', 'no entry', 'sign in')], changes: [],
    settings: [{ key: 'debug', value: 'api', origin: 'settings', source: '/c/agentstack-settings.json' }],
    traceOn: true, signInLog: { missing: true }, trace: { missing: true }, generatedAt: new Date('2026-01-01T00:00:00Z'), ...over,
  };
}

describe('renderReport', () => {
  it('opens with the no-secret statement, then versions, every row, the settings and both logs', () => {
    const text = renderReport(facts({ signInLog: { text: 'line 1\nline 2\n' }, trace: { unreadable: 'a FIFO' } }), paths, [TOKEN]);
    expect(text).toMatch(/^# AgentStack plugin support report\n\n> This report contains no secret: .*\(none was found\)/);
    expect(text).toContain('| Plugin | 9.9.9 (/p) |');
    expect(text).toContain("| Cursor (last seen by the plugin's hooks) | 2.1.0 |");
    expect(text).toMatch(/FAIL {2}mcp\.entry +no entry\n +-> sign in/);
    expect(text).toMatch(/debug +api +settings \(\/c\/agentstack-settings\.json\)/);
    expect(text).toContain('```text\nline 1\nline 2\n```');
    expect(text).toContain('/c/agentstack-debug.log was not read: a FIFO');
  });

  it('scrubs a secret that reached a row or a log, and says so at the top', () => {
    const text = renderReport(facts({ checks: [pass('online.who', `server said ${TOKEN}`)], signInLog: { text: `{"echo":"${TOKEN.slice(3, 30)}"}` } }), paths, [TOKEN]);
    expect(findLeaks([{ what: 'report', text }], [TOKEN])).toEqual([]);
    expect(text).toMatch(/\(what was found is shown as \*\*\*\*\)/);
  });

  it('a log with backticks cannot close its fence; the trace shows its last 20 entries', () => {
    const entries = Array.from({ length: 25 }, (_, n) => `[api session-start pid 1] t GET https://x/${n} -> 200 (1 ms)\n  < body\n`).join('');
    const text = renderReport(facts({ signInLog: { text: 'a ```` b\n' }, trace: { text: entries } }), paths, []);
    expect(text).toContain('`````text\na ```` b\n`````');
    expect(text).not.toContain('https://x/4 ');
    expect(text).toContain('https://x/5 ');
    expect(text).toContain('https://x/24 ');
  });
});

describe('renderReport and personal data', () => {
  const withPersonal = (over: Partial<ReportFacts> = {}) => facts({
    checks: [pass('online.who', 'the server knows the token: alice.smith@example.test'), pass('account', 'signed in as alice.smith@example.test')],
    pluginRoot: '/home/alice/.cursor/plugins/local/agentstack', home: '/home/alice', ...over,
  });
  it('masks the account e-mail and the home folder by default, and says so at its top', () => {
    const text = renderReport(withPersonal(), paths, []);
    expect(text).not.toContain('alice.smith@example.test');
    expect(text).toContain('a***@example.test');
    expect(text).not.toContain('/home/alice');
    expect(text).toContain('~/.cursor/plugins/local/agentstack');
    expect(text.split('\n').slice(0, 6).join('\n')).toContain('run with --include-account to keep them');
  });
  it('--include-account keeps them, and says so at its top', () => {
    const text = renderReport(withPersonal({ includeAccount: true }), paths, []);
    expect(text).toContain('alice.smith@example.test');
    expect(text.split('\n').slice(0, 6).join('\n')).toContain('It includes your account');
  });
});

describe('renderReport for a public ticket', () => {
  it('no live sign-in code: not in the device.lock row, not in the last sign-in\'s log (even with --include-account)', () => {
    for (const includeAccount of [false, true]) {
      const text = renderReport(facts({
        includeAccount, signInCodes: ['WDJB-MJHT'],
        checks: [pass('device.lock', 'a sign-in is running (pid 42): enter WDJB-MJHT at https://as.example.test/device?user_code=WDJB-MJHT')],
        signInLog: { text: '{"event":"poller_started","user_code":"QRST-UVWX","server_url":"https://as.example.test/mcp"}\n    QRST-UVWX\nopen https://as.example.test/device?user_code=QRST-UVWX\n' },
      }), paths, []);
      expect(text).not.toContain('WDJB-MJHT');
      expect(text).not.toContain('QRST-UVWX');
      expect(text).toContain('[sign-in code hidden]');
    }
  });

  it('e-mails masked whatever their letters; a version after @ is not an e-mail', () => {
    const text = renderReport(facts({ checks: [pass('account', "jörg.müller@firma.de, o'brien@example.test, alice@localhost, Ünal@exämple.de; agentstack@1.2.3")] }), paths, []);
    for (const shown of ['jörg', 'müller', "o'b", 'brien', 'alice@', 'Ünal']) expect(text).not.toContain(shown);
    expect(text).toContain('j***@firma.de');
    expect(text).toContain('o***@example.test');
    expect(text).toContain('a***@localhost');
    expect(text).toContain('agentstack@1.2.3');
  });

  it('the home folder masked by its resolved path as well as HOME', () => {
    const dir = tempDir('agentstack-report-home-');
    try {
      const real = join(dir.path, 'real-home');
      const link = join(dir.path, 'home-link');
      mkdirSync(real);
      symlinkSync(real, link);
      const cursor = join(link, '.cursor');
      mkdirSync(cursor);
      const lockPaths = cursorPaths({ AGENTSTACK_CURSOR_DIR: cursor });
      writeFileSync(lockPaths.deviceLock, JSON.stringify({ pid: 1, started_at: '2026-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z', user_code: 'LMNO-PQRS' }));
      const { tails } = gatherReportFacts(lockPaths, { HOME: link, AGENTSTACK_CURSOR_DIR: cursor }, false, {});
      expect(tails.homes).toContain(realpathSync(link));
      expect(tails.signInCodes).toEqual(['LMNO-PQRS']);
      const text = renderReport(facts({ ...tails, home: link, pluginRoot: `${realpathSync(link)}/.cursor/plugins/agentstack`, checks: [pass('x', `${link}/.cursor/mcp.json and LMNO-PQRS`)] }), paths, []);
      expect(text).not.toContain(realpathSync(link));
      expect(text).not.toContain(link);
      expect(text).not.toContain('LMNO-PQRS');
      expect(text).toContain('~/.cursor/plugins/agentstack');
    } finally {
      dir.cleanup();
    }
  });
});

describe('renderReport and the activity journal', () => {
  it('shows the journal in counts only: no action is named but the failing ones', () => {
    const dir = tempDir('agentstack-report-journal-');
    try {
      const journalPaths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
      const now = Date.parse('2026-09-01T10:00:00Z');
      appendJournalRecord(journalPaths.journal, afterRecord({ now, server: 's', toolInput: { steps: [{ id: '1', action: 'secret.project_alpha' }] }, resultJson: { structuredContent: { ok: true, results: [{ id: '1', ok: true }] } } }));
      appendJournalRecord(journalPaths.journal, afterRecord({ now: now + 1_000, server: 's', toolInput: { steps: [{ id: '1', action: 'projects.list' }, { id: '2', action: 'data.write' }] }, resultJson: { isError: true, structuredContent: { ok: false, results: [{ id: '1', ok: true }, { id: '2', ok: false, error: { code: 'missing_capability' } }] } } }));
      appendJournalRecord(journalPaths.journal, preRecord({ now: now + 2_000, server: 's', toolInput: { steps: [{ id: '1', action: 'secret.denied_one' }] }, decision: 'deny', reasons: ['rule:deny-actions'] }));
      const { tails } = gatherReportFacts(journalPaths, {}, false, {});
      const text = renderReport(facts({ ...tails, settings: [{ key: 'journal', value: 'on', origin: 'default', source: null }] }), paths, []);
      expect(text).toContain('## Activity journal (counts only)');
      expect(text).toContain('- calls that ran: 2, failed: 1\n- calls the pre-call check denied: 1, asked about: 0\n- failing steps: data.write missing_capability (1)');
      expect(text).not.toMatch(/secret\.|projects\.list/);
      const none = renderReport(facts({ journal: { path: '/c/agentstack-journal.jsonl', counts: { calls: 0, failed: 0, denied: 0, asked: 0, since: null, until: null, failing: [] }, problems: [] }, settings: [{ key: 'journal', value: 'off', origin: 'settings', source: '/c/s.json' }] }), paths, []);
      expect(none).toContain('No AgentStack call recorded in /c/agentstack-journal.jsonl. Recording is off (setting `journal`).');
    } finally {
      dir.cleanup();
    }
  });
});
