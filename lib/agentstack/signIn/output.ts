/**
 * How the sign-in talks to people and programs. Human text is gh-style (what happened + what next); with `--json`,
 * stdout carries exactly one JSON event per line (`device_code`, then `pending`/`slow_down`, then `authorized` or `error`) and the human text goes to stderr.
 * Nothing here ever prints a token: events carry only codes, URLs, counts and times.
 */
import { tilde } from '../../platform/text/tilde.js';
import { progressNotes } from '../../platform/progress.js';
import { skippedText } from '../snapshot/skipped.js';
import type { FlowEvent } from './flow.js';
import { PluginError, quoteShort, type PluginErrorCode } from '../../platform/errors.js';
import type { DeviceLock } from '../../schemas/state.js';
import { isDisplayableUserCode } from './userCode.js';
import { isPlainLink } from './browser.js';
import { ENABLE_STEP } from '../plugin/cursorUi.js';
import { projectOf, projectText } from '../state/project.js';

export interface OutputStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** The `error` codes of the JSON events; kernel codes outside the list map to their nearest one. */
const JSON_ERROR_CODES: Partial<Record<PluginErrorCode, string>> = {
  timeout: 'network',
  invalid_grant: 'server',
  malformed_file: 'invalid_config',
  locked: 'server',
  io: 'invalid_config',
};

export function jsonErrorCode(error: unknown): string {
  if (!(error instanceof PluginError)) return 'server';
  return JSON_ERROR_CODES[error.code] ?? error.code;
}

/** The granted scopes, and how many of the available actions they leave out (what a narrower preset costs). */
export function scopesText(scopes: readonly string[] | null, uncovered: number | null, available: number | null): string {
  if (!scopes) return 'not listed by the server';
  const list = scopes.map((s) => quoteShort(s, 60)).join(' ');
  if (uncovered === null || available === null) return list;
  return uncovered ? `${list} (${uncovered} of the ${available} actions need a scope not granted)` : `${list} (they cover all ${available} actions)`;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function formatLeft(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** What the disk says once a followed sign-in has ended (read by the caller from the files it wrote). */
export interface JoinedSignIn {
  server_url: string;
  who: string | null;
  project_id: number | null;
  expires_at: string | null;
  refresh_stored: boolean;
  scopes: string[] | null;
  capabilities: number | null;
  uncovered_actions: number | null;
  /** False when the followed sign-in wrote nothing new and an earlier credential is still in place. */
  fresh: boolean;
}

export interface Reporter {
  onEvent(event: FlowEvent): void;
  /** A sign-in is already running: shows its code (unless it was approved) and says this run waits for it. */
  alreadyRunning(holder: DeviceLock): void;
  /** The followed sign-in's code was approved and it is saving the sign-in. */
  followedApproved(): void;
  /** The followed sign-in ended signed in: the same `authorized` event a sign-in of its own ends with. */
  joined(result: JoinedSignIn): void;
  /** Reports a failure; returns the exit code. */
  fail(error: unknown): number;
  /** Stops the spinner (idempotent). */
  stop(): void;
}

export function createReporter(options: { json: boolean; streams: OutputStreams; now?: () => number; plainEveryMs?: number }): Reporter {
  const { json, streams } = options;
  const now = options.now ?? Date.now;
  const human = json ? streams.stderr : streams.stdout;
  const say = (line = '') => human.write(`${line}\n`);
  const emit = (event: Record<string, unknown>) => {
    if (json) streams.stdout.write(`${JSON.stringify(event)}\n`);
  };
  const tty = Boolean(streams.stderr.isTTY);
  const note = progressNotes({ json, stream: streams.stderr });
  let deadline = 0;
  let spinner: NodeJS.Timeout | undefined;
  let lastPlain = 0;

  const stop = () => {
    if (spinner) {
      clearInterval(spinner);
      spinner = undefined;
      streams.stderr.write('\r\x1b[K');
    }
  };
  const startWaiting = () => {
    if (tty) {
      let frame = 0;
      spinner = setInterval(() => {
        streams.stderr.write(`\r\x1b[K${SPINNER[frame++ % SPINNER.length]} Waiting for approval in the browser… ${formatLeft((deadline - now()) / 1000)} left (Ctrl-C to stop)`);
      }, 120);
      spinner.unref();
    } else {
      say(`Waiting for approval in the browser (${formatLeft((deadline - now()) / 1000)} left)…`);
      lastPlain = now();
    }
  };

  const onEvent = (event: FlowEvent) => {
    switch (event.event) {
      case 'device_code': {
        deadline = now() + event.expires_in * 1000;
        emit({ event: 'device_code', user_code: event.user_code, verification_uri: event.verification_uri, verification_uri_complete: event.verification_uri_complete, expires_in: event.expires_in, interval: event.interval });
        say('! First copy your one-time code:');
        say(`    ${event.user_code}`);
        say(`  Then enter it at: ${event.verification_uri}`);
        if (event.verification_uri_complete) say(`  Or open this link, which fills in the code: ${event.verification_uri_complete}`);
        say(`  The code expires in ${Math.round(event.expires_in / 60)} min.`);
        return;
      }
      case 'browser':
        if (event.outcome === 'opened') say('Opened your browser. Approve the code there.');
        else if (event.outcome === 'no_display') say('No display found: open the link above on any device.');
        else if (event.outcome === 'failed') say('Could not open a browser: open the link above yourself.');
        else say('Open the link above in your browser (browser opening is off).');
        startWaiting();
        return;
      case 'pending':
        emit({ event: 'pending' });
        if (!tty && now() - lastPlain >= (options.plainEveryMs ?? 30_000)) {
          say(`Still waiting for approval (${formatLeft(event.seconds_left)} left)…`);
          lastPlain = now();
        }
        return;
      case 'slow_down':
        emit({ event: 'slow_down', interval: event.interval });
        if (!tty) say(`The server asked to poll more slowly: now every ${event.interval} s.`);
        return;
      case 'retrying':
        if (!tty) say(`${event.message}; retrying in ${event.delay_s} s.`);
        return;
      case 'discovering':
        note(`Asking ${event.server_url} how to sign in…`);
        return;
      case 'discovery_note':
        say(`! ${event.message}.`);
        return;
      case 'approved':
        // Human text only: the JSON events stay device_code, pending/slow_down, then authorized or error.
        stop();
        say('Approved. Saving the sign-in and reading the server\'s actions…');
        return;
      case 'authorized': {
        stop();
        emit({ event: 'authorized', server_url: event.server_url, project_id: event.project_id, expires_at: event.expires_at, capabilities: event.capabilities, ...(event.skipped ? { skipped: event.skipped.count } : {}), scopes: event.scopes, uncovered_actions: event.uncovered_actions, ...(event.refresh_store ? { refresh_store: event.refresh_store } : {}), next_step: ENABLE_STEP });
        say(`✓ Signed in to AgentStack${event.who ? ` as ${event.who}` : ''}.`);
        say(`  Server: ${event.server_url}`);
        // The pin the sign-in just wrote is the X-Project-ID its calls carry; without one, the account's default.
        say(`  Project: ${projectText(projectOf({ header: event.project_id, pin: { projectId: null, source: 'none' }, claimed: null }))}`);
        say(`  Token valid until: ${event.expires_at ?? 'the server did not say'}${event.refresh_stored ? ' (a stored refresh token renews it)' : ''}`);
        if (event.capabilities !== null) say(`  Actions available: ${event.capabilities}${event.skipped ? `; ${skippedText(event.skipped.count, event.skipped.reason)}` : ''}`);
        say(`  Scopes granted: ${scopesText(event.scopes, event.uncovered_actions, event.capabilities)}`);
        for (const warning of event.warnings) say(`  warning: ${warning}`);
        say(`Cursor rereads ${tilde(event.mcp_json)} by itself. ${ENABLE_STEP} If it stays red, reload the window.`);
        return;
      }
    }
  };

  return {
    onEvent,
    stop,
    alreadyRunning(holder) {
      // The lock is a file anyone with this account can write: show only a code and links that pass the same rules
      // as a server's.
      const shown = {
        verification_uri: isPlainLink(holder.verification_uri) ? holder.verification_uri : null,
        verification_uri_complete: isPlainLink(holder.verification_uri_complete) ? holder.verification_uri_complete : null,
        user_code: isDisplayableUserCode(holder.user_code) ? holder.user_code : null,
      };
      if (holder.approved_at) {
        // Its code is used up: showing it would send the person to enter a code the server no longer takes.
        const message = `A sign-in was just approved and is being saved (pid ${holder.pid}); waiting for it to finish.`;
        emit({ event: 'error', error: 'already_running', message, approved: true, verification_uri: null, verification_uri_complete: null, user_code: null });
        say(`! ${message}`);
        return;
      }
      const message = `A sign-in is already running (pid ${holder.pid}); approve its code, or wait until ${quoteShort(holder.expires_at, 40)}.`;
      emit({ event: 'error', error: 'already_running', message, ...shown });
      say(`! ${message}`);
      if (shown.user_code) say(`  Code: ${shown.user_code}`);
      if (shown.verification_uri_complete || shown.verification_uri) say(`  Enter it at: ${shown.verification_uri_complete ?? shown.verification_uri}`);
      say('  Waiting for that sign-in to finish (Ctrl-C stops waiting; it goes on)…');
    },
    followedApproved() {
      say('That sign-in was approved. Waiting while it is saved…');
    },
    joined(result) {
      emit({ event: 'authorized', joined: true, fresh: result.fresh, server_url: result.server_url, project_id: result.project_id, expires_at: result.expires_at, capabilities: result.capabilities, scopes: result.scopes, uncovered_actions: result.uncovered_actions });
      const as = result.who ? ` as ${result.who}` : '';
      say(result.fresh
        ? `✓ Signed in to AgentStack${as} (by the sign-in that was already running).`
        : `✓ Still signed in to AgentStack${as} with the earlier token: the sign-in that was already running ended without a new one.`);
      say(`  Server: ${result.server_url}`);
      say(`  Token valid until: ${result.expires_at ?? 'the token does not say'}${result.refresh_stored ? ' (a stored refresh token renews it)' : ''}`);
      say(`  Scopes granted: ${scopesText(result.scopes, result.uncovered_actions, result.capabilities)}`);
    },
    fail(error) {
      stop();
      const code = jsonErrorCode(error);
      const message = error instanceof PluginError ? error.message : `Unexpected failure: ${quoteShort((error as Error)?.message ?? error, 160)}`;
      emit({ event: 'error', error: code, message });
      streams.stderr.write(`X ${message}\n`);
      return 1;
    },
  };
}
