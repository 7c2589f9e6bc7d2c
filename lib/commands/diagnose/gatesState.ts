/**
 * diagnose-local's gates over the credential and the plugin's own state files. Pure: each takes state already read
 * by state.ts (and `now`) and returns one Check. The token appears only masked, gh-style.
 */
import { placementText } from '../../agentstack/auth/refreshStore.js';
import { credentialStoreText, keychainBlock, type CredentialStoreFacts } from '../../agentstack/credentials/storeFacts.js';
import { maskSecret } from '../../platform/text/mask.js';
import { parseProjectId } from '../../agentstack/mcpJson/entry.js';
import { REFRESH_WINDOW_MS } from '../../agentstack/mcpJson/credential.js';
import { deviceLockEndsAt, isLiveDeviceLock, shownDeviceLock } from '../../agentstack/signIn/lock.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { RUN_FIX, notChecked, octal } from './gatesConfig.js';
import { tilde } from '../../platform/text/tilde.js';
import type { LocalState } from './state.js';
import { SNAPSHOT_MAX_AGE_MS } from '../../agentstack/snapshot/layout.js';
import { skippedText } from '../../agentstack/snapshot/skipped.js';
import { PIN_FIX } from '../../agentstack/auth/projectPin.js';
import { RULE_KEYS, type ManagedRead } from '../../agentstack/settings/managed.js';
import { dirname } from 'node:path';
import { accountText, expiryText, isUsable, timeLeftText, type AccountState } from '../../agentstack/state/account.js';
import { RENEWAL_STEP, SIGN_IN_STEP } from '../../agentstack/state/story.js';
import { projectText } from '../../agentstack/state/project.js';


export function formatDuration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

/** The account as every view names it: its state, who, the server, the expiry, and calls' project. */
export function accountGate(s: Pick<LocalState, 'derived' | 'now'>): Check {
  const id = 'account';
  const { account, serverUrl, project, who } = s.derived;
  const expiry = account.expiresAt === null ? '' : `; token ${expiryText(account.expiresAt, s.now)}`;
  const summary = `${accountText(account, who)} (server ${serverUrl})${expiry}; project ${projectText(project)}`;
  const { story } = s.derived;
  const evidence = { state: account.state, next_step: story.next };
  if (story.next === null) return pass(id, summary, evidence);
  // A renewal due: the plugin is on it. A sign-in waiting for approval, or a state the person chose: a WARN, never
  // a FAIL. Anything else that needs the person fails, with its one next step.
  if (story.underway && isUsable(account.state)) return pass(id, `${summary}. ${story.next}`, evidence);
  // Signed in, with something to do before the token expires (a keychain renewal cannot read): a WARN.
  if (account.state === 'signed_in') return warn(id, summary, story.next, evidence);
  if (story.underway || CHOSEN_STATES.has(account.state)) return warn(id, summary, story.next, evidence);
  return fail(id, `${summary}: ${story.truth}`, story.next, evidence);
}

/** States the person chose (never signed in, signed out): diagnose reports them, never as a failure. */
export const CHOSEN_STATES: ReadonlySet<AccountState> = new Set<AccountState>(['never_signed_in', 'signed_out']);

export function tokenExpiryGate(s: Pick<LocalState, 'bearer' | 'jwtExpMs' | 'refresh' | 'now'> & { derived?: Pick<LocalState['derived'], 'story'>; credentialStore?: CredentialStoreFacts }): Check {
  const id = 'token.expiry';
  if (!s.bearer) return notChecked(id, 'no Bearer token');
  const masked = maskSecret(s.bearer);
  const stored = s.refresh.expiresAt ? Date.parse(s.refresh.expiresAt) : NaN;
  const expMs = s.jwtExpMs ?? (Number.isFinite(stored) ? stored : null);
  const source = s.jwtExpMs !== null ? 'JWT exp' : 'stored expires_at';
  if (expMs === null) return pass(id, `token ${masked}; expiry unknown (not a JWT, no stored expires_at)`);
  const left = expMs - s.now;
  const when = new Date(expMs).toISOString();
  // The time left worded as --status and the account row word it (one rounding).
  if (left > REFRESH_WINDOW_MS) return pass(id, `token ${masked} valid for ${timeLeftText(left)} (until ${when}, ${source})`);
  const canRefresh = s.refresh.exists && !s.refresh.error;
  const state = left > 0 ? `expires in ${timeLeftText(left)}` : `expired ${timeLeftText(left)} ago`;
  const block = canRefresh && s.credentialStore ? keychainBlock(s.credentialStore) : null;
  if (block) return warn(id, `token ${masked} ${state}; ${block.problem}`, block.fix ?? SIGN_IN_STEP);
  if (canRefresh) return pass(id, `token ${masked} ${state}; a refresh token is stored. ${RENEWAL_STEP}`);
  // The account's one next step: a sign-in already waiting for approval is a WARN (the plugin is on it), as the account row says.
  const story = s.derived?.story;
  if (story?.underway && story.next) return warn(id, `token ${masked} ${state} and no refresh token is stored`, story.next);
  return fail(id, `token ${masked} ${state} and no refresh token is stored`, story?.next ?? SIGN_IN_STEP);
}

export function refreshFileGate(r: LocalState['refresh'], path: string, platform: NodeJS.Platform = process.platform, store?: CredentialStoreFacts, hasToken = true): Check {
  const id = 'refresh.file';
  // The keychain that stops renewal or a sign-in is named here, with its fix (never a sign-in that would stop).
  const block = store ? keychainBlock(store) : null;
  if (block && !r.error) {
    const what = `${r.exists ? `${tilde(path)} present; ` : ''}${block.problem}`;
    return (block.signInStops ? fail : warn)(id, what, block.fix ?? SIGN_IN_STEP);
  }
  if (!r.exists && !hasToken) return notChecked(id, 'no token and no refresh token stored');
  if (!r.exists) return warn(id, 'no refresh token stored: you sign in again when the token expires', SIGN_IN_STEP);
  if (r.error) return fail(id, r.error, SIGN_IN_STEP);
  if (platform !== 'win32' && r.mode !== null && (r.mode & 0o077) !== 0) {
    return fail(id, `${tilde(path)} has mode ${octal(r.mode)}: other users can read the refresh token`, `${RUN_FIX} (chmod 600)`);
  }
  if (r.legacy) return warn(id, `${tilde(path)} is in the plain-text form of versions before 0.5`, 'Nothing to do: the next refresh rewrites it as JSON');
  if (store && !store.usable) return warn(id, `${tilde(path)} present; ${credentialStoreText(store)}`, SIGN_IN_STEP);
  const kept = store?.refresh_in ? `; refresh token in ${store.refresh_in}${store.reason ? `: ${store.reason}` : ''}` : r.placement ? `; refresh token in ${placementText(r.placement)}` : '';
  const setting = store && store.setting !== 'auto' ? `; ${credentialStoreText(store).split(';')[0]}` : '';
  return pass(id, `${tilde(path)} present, JSON${platform === 'win32' ? '' : ', mode 0600'}${kept}${setting}`);
}

export function projectPinGate(pin: LocalState['pin'], path: string): Check {
  const id = 'project.pin';
  const fixPin = `The pin is ignored until fixed: ${PIN_FIX} (project 1 is shared, never pinned)`;
  if (pin.env) {
    const n = parseProjectId(pin.env);
    return n !== null ? pass(id, `project ${n} (AGENTSTACK_PROJECT_ID)`) : fail(id, `AGENTSTACK_PROJECT_ID=${JSON.stringify(pin.env.slice(0, 20))} is not an integer > 1`, 'Unset it or set an integer greater than 1');
  }
  if (pin.text === null || !pin.text.trim()) return pass(id, "no project pin: calls go to your account's default project");
  const n = parseProjectId(pin.text);
  return n !== null ? pass(id, `project ${n} (${tilde(path)})`) : fail(id, `${tilde(path)} holds ${JSON.stringify(pin.text.trim().slice(0, 20))}, not an integer > 1`, fixPin);
}

export function snapshotGate(snap: LocalState['snapshot'], path: string, now: number): Check {
  const id = 'capabilities.snapshot';
  if (!snap.exists && snap.failure) return warn(id, `no capability snapshot: the last fetch failed at ${snap.failure.at}: ${snap.failure.message}`, 'Check the server (diagnose-local --online); session start tries again 15 min after a failure');
  if (!snap.exists) return warn(id, 'no capability snapshot yet', 'Sign in, or start a new agent session: session start fetches GET /mcp/actions');
  if (!snap.data) return fail(id, `${tilde(path)} ${snap.error ?? 'is unreadable'}`, `${snap.folder ? 'Remove the folder' : 'Delete'} ${tilde(path)}; the next session start fetches a fresh one`);
  const age = now - Date.parse(snap.data.fetched_at);
  const skipped = snap.data.skipped_entries ? `; ${skippedText(snap.data.skipped_entries, snap.data.skipped_reason)}` : '';
  const count = `${snap.data.actions.length} actions${skipped}`;
  const ageText = Number.isFinite(age) ? `fetched ${formatDuration(age)} ago` : 'fetch time unknown';
  const failed = snap.failure ? `; the last fetch failed at ${snap.failure.at}: ${snap.failure.message}` : '';
  if (!Number.isFinite(age) || age > SNAPSHOT_MAX_AGE_MS) return warn(id, `${count}, ${ageText} (older than 24 h)${failed}`, 'Start a new agent session: session start refreshes it');
  const unapproved = snap.data.unapproved ?? [];
  if (unapproved.length) {
    const names = unapproved.slice(0, 3).join(', ') + (unapproved.length > 3 ? `, +${unapproved.length - 3} more` : '');
    return warn(id, `${count}; ${unapproved.length} new action(s) not yet approved: ${names}`, 'Review them, then run diagnose-local --approve-actions');
  }
  if (skipped) return warn(id, `${count}, ${ageText}`, 'The server\'s catalog has entries the plugin cannot read; those actions are treated as unknown (ask the server\'s operator to fix them)');
  return pass(id, `${count}, flat, ${ageText}`);
}

/**
 * A device lock held by its live process, within its life cap and not dated in the future: it must never be
 * removed. Any other lock is stale (--fix removes it).
 */
export function isLiveLock(lock: LocalState['lock'], now: number): boolean {
  return lock.data !== null && isLiveDeviceLock(lock.data, { holderAlive: lock.holderAlive, now });
}

export function deviceLockGate(lock: LocalState['lock'], now: number): Check {
  const id = 'device.lock';
  if (!lock.exists) return pass(id, 'no sign-in in progress');
  if (!lock.data) return warn(id, 'the device lock file is malformed', `${RUN_FIX} to remove it`);
  if (isLiveLock(lock, now)) {
    const shown = shownDeviceLock(lock.data, lock.origins);
    const url = shown.verification_uri_complete ?? shown.verification_uri ?? null;
    const where = url ?? `(its page is not on ${lock.origins[0] ?? 'the server'}; not shown)`;
    return pass(id, `a sign-in is running (pid ${lock.data.pid}): enter ${lock.data.user_code ?? '(no code)'} at ${where}`, { url, user_code: lock.data.user_code ?? null });
  }
  const endsAt = deviceLockEndsAt(lock.data);
  const why = !lock.holderAlive ? `process ${lock.data.pid} is gone`
    : Date.parse(lock.data.started_at) > now ? 'dated in the future'
    : Number.isFinite(endsAt) ? `expired ${formatDuration(now - endsAt)} ago` : 'no valid times';
  return warn(id, `stale device lock (${why})`, `${RUN_FIX} to remove it`);
}

/** The settings file: absent is fine; broken or holding a refused value is reported (it is ignored, never fatal). */
export function settingsFileGate(settings: Pick<LocalState['settings'], 'file' | 'mode'>, platform: NodeJS.Platform = process.platform): Check {
  const id = 'settings.file';
  const { file, mode } = settings;
  const path = tilde(file.path);
  if (!file.exists) return pass(id, 'no settings file: environment variables and defaults apply');
  const fix = `Fix ${path} by hand, or delete it and set the values again with config.mjs set (config.mjs list shows what is in effect)`;
  if (file.broken) return warn(id, file.problems[0] ?? `${path} cannot be used; it was ignored`, fix);
  if (file.problems.length) return warn(id, file.problems.join(' '), fix);
  if (platform !== 'win32' && mode !== null && (mode & 0o077) !== 0) {
    return warn(id, `${path} has mode ${octal(mode)}: other users can read your settings (a proxy password among them)`, `${RUN_FIX} (chmod 600)`);
  }
  const keys = Object.keys(file.values);
  return pass(id, `${path}: ${keys.length ? keys.join(', ') : 'no settings'}${platform === 'win32' ? '' : ', mode 0600'}`);
}

/** The organization's managed settings file: none, in effect (which keys), or unusable (and what that does). */
export function managedSettingsGate(managed: ManagedRead): Check {
  const id = 'settings.managed';
  const path = managed.path;
  if (!managed.exists) return pass(id, `no managed settings file (${path}): your own settings apply`);
  const admin = 'Ask your administrator';
  if (managed.broken) {
    return fail(id, `${path} cannot be used (${managed.problems[0] ?? 'unreadable'}): every AgentStack call asks until it is fixed`, `${admin} to fix or remove it: a JSON object with the keys of ~/.cursor/agentstack-settings.json`);
  }
  const keys = managed.keys.length ? managed.keys.join(', ') : 'no keys';
  if (managed.distrust) {
    const ignored = Object.keys(managed.values).filter((k) => !managed.keys.includes(k as never));
    return fail(id, `${path} can be changed by others (${managed.distrust}): only its rules apply (${keys})${ignored.length ? `; ignored: ${ignored.join(', ')}` : ''}`,
      /^[A-Za-z]:\\/.test(path)
        ? `${admin} to make it and its folder owned by Administrators and changeable by administrators only: icacls "${dirname(path)}" /setowner *S-1-5-32-544 /T && icacls "${dirname(path)}" /inheritance:r /grant:r *S-1-5-18:(OI)(CI)F *S-1-5-32-544:(OI)(CI)F *S-1-5-32-545:(OI)(CI)RX /T`
        : `${admin} to make it and its folder owned by root and writable by root only: sudo chown root ${path} "${dirname(path)}" && sudo chmod go-w ${path} "${dirname(path)}"`);
  }
  const rules = managed.rejected.filter((k) => RULE_KEYS.includes(k));
  if (rules.length) return fail(id, `${path}: the value of ${rules.join(', ')} is not valid: every AgentStack call asks until it is fixed`, `${admin} to fix it`);
  const strict = Object.entries(managed.strict ?? {}).map(([k, means]) => `${k} is not valid (${means})`);
  if (managed.rejected.length || strict.length) {
    const refused = managed.rejected.length ? `; refused and ignored: ${managed.rejected.join(', ')}` : '';
    return warn(id, `${path}: set by your organization: ${keys}${refused}${strict.length ? `; ${strict.join('; ')}` : ''}`, `${admin} to fix it`);
  }
  return pass(id, `${path}: set by your organization: ${keys}`);
}
