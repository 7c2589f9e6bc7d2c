/**
 * Every state, one story, for the keychain: against a real GNOME Keyring (a private D-Bus session bus in a temporary
 * home, helpers/secretService.ts), locked and unlocked, with the built bundles run from a plugin folder that is not
 * `~/.cursor/plugins/local/agentstack` (a copy under the test's own folder). Each row's views (`--status` text and
 * JSON, diagnose-local text and JSON, the session card) say the same keychain fact, and each next step they name is
 * done in its state and does not refuse:
 * - the keychain is the only store (credential-store = keychain, from `config set`) and there is no Secret Service:
 *   every view names the keychain and its fix, none offers a sign-in that would stop at once; `set_by` is settings;
 * - the refresh token is in a keyring that is locked: every view notices the lock; `--logout` says in one statement
 *   that the keychain kept its copy; unlocking, then `--logout` again, removes it;
 * - the token went to the file for want of a session bus, and a bus has appeared since: no view says "no D-Bus
 *   session bus" as if it were still true.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { tempDir } from '../helpers/repo.js';
import { secretServiceMissing, startSecretService, type SecretServiceSession } from '../helpers/secretService.js';
import { SESSION_INPUT, runHook } from '../helpers/sessionStart.js';
import { baseChildEnv } from '../helpers/platform.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { findLeaks } from '../helpers/secretScan.js';

const missing = secretServiceMissing();
let core: RunningCore;
let root: ReturnType<typeof tempDir>;
let plugin: string;
let dir: ReturnType<typeof tempDir>;
let session: SecretServiceSession | null = null;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  root = tempDir('agentstack-keychain-states-');
  // Where a marketplace install would put it: not ~/.cursor/plugins/local/agentstack.
  plugin = join(root.path, 'plugins', 'cache', 'agentstack', '0.5.0');
  mkdirSync(plugin, { recursive: true });
  copyPlugin(plugin);
});
afterAll(async () => {
  await core?.close();
  root?.cleanup();
});
beforeEach(() => { dir = tempDir('agentstack-keychain-state-'); });
afterEach(async () => {
  await session?.stop();
  session = null;
  dir.cleanup();
});

const script = (rel: string) => join(plugin, rel);
const envOf = (extra: Record<string, string> = {}) => ({ ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl, ...extra });
const run = (rel: string, args: string[], extra: Record<string, string> = {}) => spawnSync(process.execPath, [script(rel), ...args], { env: envOf(extra), encoding: 'utf8', timeout: 60_000 });
const bus = (s: SecretServiceSession) => ({ DBUS_SESSION_BUS_ADDRESS: s.env.DBUS_SESSION_BUS_ADDRESS! });
const entry = () => ({ service: 'agentstack-cursor', server: `${core.baseUrl}/mcp`, account: dir.path });
const record = () => JSON.parse(readFileSync(join(dir.path, 'agentstack-refresh'), 'utf8')) as Record<string, unknown>;

interface Check { id: string; status: string; summary: string; fix?: string; evidence?: Record<string, unknown> }
interface Views {
  status: string;
  json: Record<string, unknown> & { credential_store: Record<string, unknown>; next_step: string | null };
  diagnose: string;
  checks: Check[];
  card: string;
}

/** Every view of this state, each a built bundle of the plugin copy. */
async function views(extra: Record<string, string>): Promise<Views> {
  const status = run('hooks/scripts/device-code.mjs', ['--status'], extra);
  const json = JSON.parse(run('hooks/scripts/device-code.mjs', ['--status', '--json'], extra).stdout);
  const diagnose = run('scripts/diagnose-local.mjs', [], extra);
  const checks = (JSON.parse(run('scripts/diagnose-local.mjs', ['--json'], extra).stdout) as { checks: Check[] }).checks;
  const card = await runHook(script('hooks/scripts/session-start.cjs'), ['--from-hook'], envOf(extra), JSON.stringify(SESSION_INPUT));
  const all = [status.stdout, status.stderr, diagnose.stdout, JSON.stringify(json), JSON.stringify(checks), card.stdout].join('\n');
  const secrets = [readRefreshSecret(), session?.lookup(entry()) ?? null].filter((s): s is string => !!s && s.length > 8);
  expect(findLeaks([{ what: 'the views', text: all }], secrets)).toEqual([]);
  return { status: status.stdout + status.stderr, json, diagnose: diagnose.stdout, checks, card: String(card.json.additional_context ?? '') };
}

function readRefreshSecret(): string | null {
  try { return (record().refresh_token as string | undefined) ?? null; } catch { return null; }
}

async function signIn(extra: Record<string, string> = {}) {
  const r = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path, script: script('hooks/scripts/device-code.mjs'), env: extra });
  try { await core.approve(String((await r.waitFor('device_code')).user_code)); } catch { /* stopped first: it says why */ }
  return r.done;
}

/** Unlocks the login keyring of a running GNOME Keyring with its password, as a person's desktop would. */
function unlock(s: SecretServiceSession): void {
  const r = spawnSync('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--replace', '--daemonize'], { env: s.env, input: 'test-password', encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`unlock failed: ${r.stderr}`);
}

const SIGN_IN_FIRST = /^(Sign in|Run .*device-code)/;

describe.skipIf(missing !== null)('every keychain state, one story (a real GNOME Keyring)', { timeout: 180_000 }, () => {
  it('credential-store = keychain (config set) and no Secret Service: every view names the keychain and its fix, set_by settings; the fix, then the sign-in, works', async () => {
    session = await startSecretService({ keyring: false, bare: true });
    const set = run('scripts/config.mjs', ['set', 'credential-store', 'keychain']);
    expect(set.status, set.stderr).toBe(0);
    const v = await views(bus(session));
    expect(v.json.credential_store).toMatchObject({ setting: 'keychain', set_by: 'settings', source: join(dir.path, 'agentstack-settings.json'), required: false, keychain: { state: 'unavailable' } });
    const next = v.json.next_step!;
    expect(next).toContain('keep the refresh token only in the system keychain');
    expect(next).toContain('no Secret Service on this session bus');
    expect(next).toMatch(/Start a Secret Service .*; or run `config set credential-store auto`\. Then sign in with /);
    expect(next).not.toMatch(SIGN_IN_FIRST);
    expect(v.status).toContain(next);
    expect(v.status).not.toContain(dir.path);
    const row = v.checks.find((c) => c.id === 'refresh.file')!;
    expect(row).toMatchObject({ status: 'FAIL', summary: expect.stringContaining('no Secret Service on this session bus') });
    expect(row.fix).toMatch(/^Start a Secret Service/);
    expect(v.checks.find((c) => c.id === 'account')?.fix).toBe(next);
    expect(v.diagnose).toContain('no Secret Service on this session bus');
    expect(v.card).toContain('keep the refresh token only in the system keychain');
    expect(v.card).not.toMatch(/Action needed:\s*Sign in/);

    // The step as the views name it: a sign-in now would stop at once, before any code (it does, and says the same).
    const asked = core.counters.deviceAuthorizations;
    const stopped = await signIn(bus(session));
    expect(stopped.code).toBe(1);
    expect(core.counters.deviceAuthorizations).toBe(asked);
    // The fix: a Secret Service in the session; then the sign-in the step names goes through into the keychain.
    await session.stop();
    session = await startSecretService();
    const after = await views(bus(session));
    expect(after.json.credential_store).toMatchObject({ keychain: { state: 'usable' } });
    expect(after.json.next_step).toMatch(/^Sign in with /);
    const done = await signIn(bus(session));
    expect(done.code, done.stderr).toBe(0);
    expect(record()).toMatchObject({ store: 'keychain' });
  });

  it('the refresh token in a locked keyring: every view notices the lock; --logout says the keychain kept its copy; unlock, then --logout again, removes it', async () => {
    session = await startSecretService();
    expect((await signIn(bus(session))).code).toBe(0);
    expect(record()).toMatchObject({ store: 'keychain' });
    session.lock();
    const v = await views(bus(session));
    expect(v.json.credential_store).toMatchObject({ setting: 'auto', refresh_in: 'keychain', usable: false, keychain: { state: 'locked' } });
    expect(String(v.json.credential_store.reason)).toContain('the keyring is locked');
    expect(v.json.next_step).toBe('The refresh token is kept in the Secret Service, which cannot be read now: the keyring is locked. Unlock your keyring. Renewal needs it before the token expires.');
    expect(v.status).toContain('no renewal: Secret Service, which cannot be read now: the keyring is locked');
    expect(v.status).not.toContain('kept in keychain: Secret Service)');
    expect(v.checks.find((c) => c.id === 'refresh.file')).toMatchObject({ status: 'WARN', summary: expect.stringContaining('the keyring is locked'), fix: 'Unlock your keyring.' });
    expect(v.checks.find((c) => c.id === 'account')).toMatchObject({ status: 'WARN', fix: v.json.next_step });
    expect(v.diagnose).toContain('the keyring is locked');

    // The step the views name: unlock the keyring; then every view is back to signed in, nothing to do.
    unlock(session);
    const unlocked = await views(bus(session));
    expect(unlocked.json.next_step).toBeNull();
    expect(unlocked.json.credential_store).toMatchObject({ refresh_in: 'keychain', usable: true, keychain: { state: 'usable' } });
    expect(unlocked.checks.find((c) => c.id === 'refresh.file')?.status).toBe('PASS');

    // Locked again, --logout: one true statement about the copy the keychain kept.
    session.lock();
    const logout = run('hooks/scripts/device-code.mjs', ['--logout'], bus(session));
    expect(logout.status).toBe(0);
    expect(logout.stdout).not.toContain('no copy of the tokens is left here');
    expect(logout.stdout).toContain('except for the refresh token in the Secret Service: its entry could not be removed');
    expect(logout.stdout).not.toContain('it was removed without being revoked');
    // The step: unlock, then sign out again; the entry is gone.
    unlock(session);
    expect(session.lookup(entry())).not.toBeNull();
    const again = run('hooks/scripts/device-code.mjs', ['--logout'], bus(session));
    expect(again.status, again.stderr).toBe(0);
    expect(session.lookup(entry())).toBeNull();
  });

  it('the token went to the file for want of a session bus; a bus appeared since: no view still says there is none', async () => {
    const signed = await signIn({ DBUS_SESSION_BUS_ADDRESS: '' });
    expect(signed.code, signed.stderr).toBe(0);
    expect(String(record().store_reason)).toMatch(/^no D-Bus session bus/);
    const without = await views({});
    expect(String(without.json.credential_store.reason)).toMatch(/^no D-Bus session bus/);
    session = await startSecretService();
    const v = await views(bus(session));
    const reason = String(v.json.credential_store.reason);
    expect(reason).toMatch(/when it was saved; there is one now, and the next renewal tries the Secret Service again$/);
    expect(v.status).toContain('there is one now');
    expect(v.checks.find((c) => c.id === 'refresh.file')?.summary).toContain('there is one now');
    expect(v.json.next_step).toBeNull();
  });

  it('credential-store set with config set: set_by is settings in --status --json, as config list says', () => {
    expect(run('scripts/config.mjs', ['set', 'credential-store', 'file']).status).toBe(0);
    const json = JSON.parse(run('hooks/scripts/device-code.mjs', ['--status', '--json']).stdout);
    expect(json.credential_store).toMatchObject({ setting: 'file', set_by: 'settings', source: join(dir.path, 'agentstack-settings.json') });
    expect(run('scripts/config.mjs', ['list']).stdout).toMatch(/credential-store\s+file\s.*settings/);
  });
});
