/**
 * `diagnose-local --report`: one Markdown document a person pastes into a support ticket. Versions, every diagnose
 * row, the settings with their origins, the tail of the last sign-in's log and the last API trace entries. Nothing
 * in it is a secret: the rows and logs never hold one (masked at the source), and the whole document is then
 * scrubbed of every run of 12 characters of each secret this machine holds; its top says whether anything was.
 */
import { realpathSync } from 'node:fs';
import { arch, homedir, platform, release } from 'node:os';
import type { HookRuns } from '../../agentstack/plugin/hookRuns.js';
import { credentialSecrets } from '../../agentstack/state/read.js';
import { hideSignInCodes, maskEmails, maskHomes } from '../../platform/text/personal.js';
import { readDeviceLock } from '../../agentstack/signIn/lock.js';
import { environmentSecrets } from '../../agentstack/debug/trace.js';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import type { SettingRow } from '../../agentstack/settings/effective.js';
import { readTail } from '../../platform/fs/rotatingLog.js';
import { renderTable, type Check } from '../../platform/report.js';
import { displayLines, displayText } from '../../platform/text/displayText.js';
import { scrubSecrets } from '../../platform/text/scrub.js';
import { tilde } from '../../platform/text/tilde.js';
import { renderSettingsTable } from '../config/render.js';
import { readJournal } from '../../agentstack/journal/file.js';
import { journalCounts, type JournalCounts } from '../../agentstack/journal/summary.js';

const SIGN_IN_LOG_LINES = 40;
const TRACE_ENTRIES = 20;
const TRACE_BYTES = 48 * 1024;

export interface ReportFacts {
  pluginVersion: string;
  pluginRoot: string;
  nodeVersion: string;
  os: string;
  /** What the last sessionStart hook input said, or null when none was recorded. */
  cursorVersion: string | null;
  title: string;
  checks: readonly Check[];
  changes: readonly string[];
  settings: readonly SettingRow[];
  traceOn: boolean;
  /** The logs' tails as read: their text, no such file, or why they could not be read. */
  signInLog: LogTail;
  trace: LogTail;
  generatedAt: Date;
  /** `--include-account`: keep the account's e-mail and home-folder paths as they are. */
  includeAccount?: boolean;
  /** The home folder to mask (this machine's by default), and its other spellings (resolved through links). */
  home?: string;
  homes?: readonly string[];
  /** Sign-in codes this machine knows of (the device lock's): hidden wherever they appear. */
  signInCodes?: readonly string[];
  /** The activity journal, in counts (absent: not read). */
  journal?: JournalSummary;
}

export interface JournalSummary {
  path: string;
  counts: JournalCounts;
  problems: string[];
}

export type LogTail = { text: string } | { missing: true } | { unreadable: string };

/** Reads everything the report shows beyond the diagnosis, and the secrets it must not show. */
export function gatherReportFacts(paths: CursorPaths, env: NodeJS.ProcessEnv, traceOn: boolean, runs: HookRuns): { tails: Pick<ReportFacts, 'signInLog' | 'trace' | 'cursorVersion' | 'traceOn' | 'journal' | 'homes' | 'signInCodes'>; secrets: string[] } {
  const secrets = [...environmentSecrets(env), ...credentialSecrets(paths)];
  const cursorVersion = runs['session-start']?.cursor_version ?? runs['pre-mcp']?.cursor_version ?? null;
  const read = readJournal(paths.journal);
  const journal = { path: paths.journal, counts: journalCounts(read.records), problems: [...read.problems, ...(read.skipped ? [`${read.skipped} line(s) are not records`] : [])] };
  let code: string | null = null;
  try { code = readDeviceLock(paths.deviceLock)?.user_code ?? null; } catch { /* no lock to read: no code */ }
  const home = homedir();
  const homes = [home, ...[home, env.HOME].flatMap((h) => (h ? [h, realpathOr(h)] : []))];
  return { tails: { signInLog: tail(paths.deviceLog, 16 * 1024), trace: tail(paths.debugLog, TRACE_BYTES), cursorVersion, traceOn, journal, homes, signInCodes: code ? [code] : [] }, secrets };
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The journal in counts only: no action is named but a failing one, and nothing of any call's parameters. */
function journalSection(journal: JournalSummary, settings: readonly SettingRow[]): string {
  const off = settings.find((r) => r.key === 'journal')?.value === 'off' ? ' Recording is off (setting `journal`).' : '';
  const c = journal.counts;
  const lines = [`## Activity journal (counts only)`, ''];
  if (c.since === null) lines.push(`No AgentStack call recorded in ${tilde(journal.path)}.${off}`);
  else {
    lines.push(`From ${tilde(journal.path)}, ${c.since} to ${c.until}.${off}`, '');
    lines.push(`- calls that ran: ${c.calls}, failed: ${c.failed}`, `- calls the pre-call check denied: ${c.denied}, asked about: ${c.asked}`);
    if (c.failing.length) lines.push(`- failing steps: ${c.failing.map((f) => `${displayText(f.action, 80)} ${displayText(f.outcome, 64)} (${f.count})`).join(', ')}`);
  }
  for (const problem of journal.problems) lines.push(`- not read: ${displayText(problem, 300)}`);
  return `${lines.join('\n')}\n`;
}

function tail(path: string, maxBytes: number): LogTail {
  try {
    const text = readTail(path, maxBytes);
    return text === null ? { missing: true } : { text };
  } catch (error) {
    return { unreadable: displayText((error as Error).message, 200) };
  }
}

export function systemDescription(): string {
  return `${platform()} ${release()} ${arch()}`;
}

/** A fenced block that no backtick run in `text` can close early. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text.trimEnd()}\n${fence}`;
}

function tailSection(heading: string, path: string, log: LogTail, pick: (text: string) => string): string {
  if ('missing' in log) return `## ${heading}\n\nNo ${tilde(path)} on this machine.\n`;
  if ('unreadable' in log) return `## ${heading}\n\n${tilde(path)} was not read: ${log.unreadable}\n`;
  return `## ${heading}\n\nFrom ${tilde(path)}:\n\n${fenced(displayLines(pick(log.text)))}\n`;
}

const lastLines = (n: number) => (text: string) => text.trimEnd().split('\n').slice(-n).join('\n');

/** The last entries of the trace: each begins with a `[api ...]` line. */
function lastEntries(text: string): string {
  const starts = [...text.matchAll(/^\[api[ \]]/gm)].map((m) => m.index!);
  if (starts.length <= TRACE_ENTRIES) return text.slice(starts[0] ?? 0);
  return text.slice(starts[starts.length - TRACE_ENTRIES]);
}

/** The Markdown report, scrubbed of `secrets`. Pure. */
export function renderReport(facts: ReportFacts, paths: Pick<CursorPaths, 'deviceLog' | 'debugLog'>, secrets: readonly string[]): string {
  const traceState = facts.traceOn ? 'on' : 'off (turn it on with AGENTSTACK_DEBUG=api, or `config set debug api`, then reproduce the problem)';
  const body = [
    '## Versions',
    '',
    '| | |',
    '|---|---|',
    `| Plugin | ${facts.pluginVersion} (${tilde(facts.pluginRoot)}) |`,
    `| Node | ${facts.nodeVersion} |`,
    `| System | ${facts.os} |`,
    `| Cursor (last seen by the plugin's hooks) | ${facts.cursorVersion ? displayText(facts.cursorVersion, 40) : 'not recorded yet'} |`,
    `| API trace | ${traceState} |`,
    '',
    '## Diagnosis',
    '',
    fenced(`${facts.changes.length ? `Changed:\n${facts.changes.map((c) => `  ${c}`).join('\n')}\n\n` : ''}${renderTable(facts.title, facts.checks)}`),
    '',
    '## Settings in effect',
    '',
    'Environment > ~/.cursor/agentstack-settings.json > default.',
    '',
    fenced(renderSettingsTable(facts.settings)),
    '',
    ...(facts.journal ? [journalSection(facts.journal, facts.settings)] : []),
    tailSection('Last sign-in', paths.deviceLog, facts.signInLog, lastLines(SIGN_IN_LOG_LINES)),
    tailSection('API trace (last entries)', paths.debugLog, facts.trace, lastEntries),
  ].join('\n');
  const scrubbed = scrubSecrets(body, secrets);
  const masked = scrubbed === body ? 'none was found' : 'what was found is shown as ****';
  // A live sign-in code would let anyone reading the ticket approve that sign-in: hidden even with --include-account.
  const coded = hideSignInCodes(scrubbed, facts.signInCodes);
  const personal = facts.includeAccount ? coded : maskHomes(maskEmails(coded), [facts.home ?? homedir(), ...(facts.homes ?? [])]);
  const privacy = facts.includeAccount
    ? '> It includes your account\'s e-mail and your home folder\'s paths (--include-account).'
    : '> Your account\'s e-mail is masked (a***@example.test) and your home folder is shown as ~; run with --include-account to keep them.';
  const head = [
    '# AgentStack plugin support report',
    '',
    `> This report contains no secret: no access token, refresh token, device code, sign-in code, client secret, proxy password or cookie. Tokens appear only masked (their first 4 characters), the trace masks every credential it records, and before printing, the whole report was searched for any 12 characters in a row of this machine's token, refresh token, client secret and proxy password (${masked}). Read it before you paste it anyway.`,
    '',
    privacy,
    '',
    `Generated ${facts.generatedAt.toISOString()}.`,
    '',
  ].join('\n');
  return `${head}\n${personal}`;
}
