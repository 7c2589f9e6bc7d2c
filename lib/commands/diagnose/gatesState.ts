/**
 * diagnose-local's gates over the credential and the plugin's own state files. Pure: each takes state already read
 * by state.ts (and `now`) and returns one Check. The token appears only masked, gh-style.
 */
import { maskSecret } from '../../platform/text/mask.js';
import { parseProjectId } from '../../agentstack/mcpJson/entry.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { RUN_FIX, SIGN_IN, notChecked, octal } from './gatesConfig.js';
import { tilde } from '../../platform/text/tilde.js';
import type { LocalState } from './state.js';

/** The hooks refresh a token this close to expiry. */
export const REFRESH_MARGIN_MS = 120_000;
export const SNAPSHOT_MAX_AGE_MS = 24 * 3600_000;

export function formatDuration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

export function tokenExpiryGate(s: Pick<LocalState, 'bearer' | 'jwtExpMs' | 'refresh' | 'now'>): Check {
  const id = 'token.expiry';
  if (!s.bearer) return notChecked(id, 'no Bearer token');
  const masked = maskSecret(s.bearer);
  const stored = s.refresh.expiresAt ? Date.parse(s.refresh.expiresAt) : NaN;
  const expMs = s.jwtExpMs ?? (Number.isFinite(stored) ? stored : null);
  const source = s.jwtExpMs !== null ? 'JWT exp' : 'stored expires_at';
  if (expMs === null) return pass(id, `token ${masked}; expiry unknown (not a JWT, no stored expires_at)`);
  const left = expMs - s.now;
  const when = new Date(expMs).toISOString();
  if (left > REFRESH_MARGIN_MS) return pass(id, `token ${masked} valid for ${formatDuration(left)} (until ${when}, ${source})`);
  const canRefresh = s.refresh.exists && !s.refresh.error;
  const state = left > 0 ? `expires in ${formatDuration(left)}` : `expired ${formatDuration(left)} ago`;
  if (canRefresh) return warn(id, `token ${masked} ${state}; a refresh token is stored`, 'Start a new agent session: the session-start hook refreshes it');
  return fail(id, `token ${masked} ${state} and no refresh token is stored`, SIGN_IN);
}

export function refreshFileGate(r: LocalState['refresh'], path: string, platform: NodeJS.Platform = process.platform): Check {
  const id = 'refresh.file';
  if (!r.exists) return warn(id, 'no refresh token stored: you sign in again when the token expires', 'Sign in again with /agentstack-login if the server issues refresh tokens');
  if (r.error) return fail(id, r.error, SIGN_IN);
  if (platform !== 'win32' && r.mode !== null && (r.mode & 0o077) !== 0) {
    return fail(id, `${tilde(path)} has mode ${octal(r.mode)}: other users can read the refresh token`, `${RUN_FIX} (chmod 600)`);
  }
  if (r.legacy) return warn(id, `${tilde(path)} is in the plain-text form of versions before 0.5`, 'Nothing to do: the next refresh rewrites it as JSON');
  return pass(id, `${tilde(path)} present, JSON${platform === 'win32' ? '' : ', mode 0600'}`);
}

export function projectPinGate(pin: LocalState['pin'], path: string): Check {
  const id = 'project.pin';
  const fixPin = `Remove ${tilde(path)} or write an integer greater than 1 into it (project 1 is shared, never pinned)`;
  if (pin.env) {
    const n = parseProjectId(pin.env);
    return n !== null ? pass(id, `project ${n} (AGENTSTACK_PROJECT_ID)`) : fail(id, `AGENTSTACK_PROJECT_ID=${JSON.stringify(pin.env.slice(0, 20))} is not an integer > 1`, 'Unset it or set an integer greater than 1');
  }
  if (pin.text === null || !pin.text.trim()) return pass(id, 'no project pin (your default project)');
  const n = parseProjectId(pin.text);
  return n !== null ? pass(id, `project ${n} (${tilde(path)})`) : fail(id, `${tilde(path)} holds ${JSON.stringify(pin.text.trim().slice(0, 20))}, not an integer > 1`, fixPin);
}

export function snapshotGate(snap: LocalState['snapshot'], path: string, now: number): Check {
  const id = 'capabilities.snapshot';
  if (!snap.exists) return warn(id, 'no capability snapshot yet', 'Sign in, or start a new agent session: session start fetches GET /mcp/actions');
  if (!snap.data) return fail(id, `${tilde(path)} ${snap.error ?? 'is unreadable'}`, `Delete ${tilde(path)}; the next session start fetches a fresh one`);
  const age = now - Date.parse(snap.data.fetched_at);
  const count = `${snap.data.actions.length} actions`;
  const ageText = Number.isFinite(age) ? `fetched ${formatDuration(age)} ago` : 'fetch time unknown';
  if (!Number.isFinite(age) || age > SNAPSHOT_MAX_AGE_MS) return warn(id, `${count}, ${ageText} (older than 24 h)`, 'Start a new agent session: session start refreshes it');
  const unapproved = snap.data.unapproved ?? [];
  if (unapproved.length) {
    const names = unapproved.slice(0, 3).join(', ') + (unapproved.length > 3 ? `, +${unapproved.length - 3} more` : '');
    return warn(id, `${count}; ${unapproved.length} new action(s) not yet approved: ${names}`, 'Review them, then run diagnose-local --approve-actions');
  }
  return pass(id, `${count}, flat, ${ageText}`);
}

/** A device lock held by a live process whose flow has not expired: it must never be removed. */
export function isLiveLock(lock: LocalState['lock'], now: number): boolean {
  const expires = lock.data ? Date.parse(lock.data.expires_at) : NaN;
  return lock.pidAlive && Number.isFinite(expires) && expires > now;
}

export function deviceLockGate(lock: LocalState['lock'], now: number): Check {
  const id = 'device.lock';
  if (!lock.exists) return pass(id, 'no sign-in in progress');
  if (!lock.data) return warn(id, 'the device lock file is malformed', `${RUN_FIX} to remove it`);
  const expires = Date.parse(lock.data.expires_at);
  if (isLiveLock(lock, now)) {
    const url = lock.data.verification_uri_complete ?? lock.data.verification_uri ?? '(no URL)';
    return pass(id, `a sign-in is running (pid ${lock.data.pid}): enter ${lock.data.user_code ?? '(no code)'} at ${url}`, { url, user_code: lock.data.user_code ?? null });
  }
  const why = lock.pidAlive ? `expired ${formatDuration(now - expires)} ago` : `process ${lock.data.pid} is gone`;
  return warn(id, `stale device lock (${why})`, `${RUN_FIX} to remove it`);
}
