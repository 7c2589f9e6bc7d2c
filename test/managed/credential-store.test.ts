/**
 * An organization requires the refresh token in the system keychain (`credential-store: keychain` in
 * /etc/agentstack/managed-settings.json, as root): with no keychain to use (no session bus; a locked collection of
 * a real GNOME Keyring; a secret-tool that hangs) the sign-in, in the foreground and the one session start begins,
 * stops before it asks the server for a code (the core's counters say none was asked), names the file and saves
 * nothing, where `auto` would use the file; the person cannot set it back; a token found in the file is never sent
 * to renew, and the views say why; with an unlocked keyring the sign-in goes through into the keychain.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { sessionStart, signInWith, stopBackgroundSignIn } from '../helpers/sessionStart.js';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { managedSettingsPath } from '../../lib/agentstack/settings/managed.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode } from '../helpers/deviceCode.js';
import { baseChildEnv } from '../helpers/platform.js';
import { secretServiceMissing, startSecretService, type SecretServiceSession } from '../helpers/secretService.js';
import { notRunWhen } from '../helpers/notRun.js';
import { expectWithinDeadline, scriptStartMs } from '../helpers/deadline.js';
import { STORE_CHECK_BUDGET_MS } from '../../lib/agentstack/credentials/storeCheck.js';

const PATH = managedSettingsPath('linux');
const DIR = '/etc/agentstack';
const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
let core: RunningCore;
let madeDir = false;
let dir: ReturnType<typeof tempDir>;
let session: SecretServiceSession | null = null;

async function signIn(env: Record<string, string> = {}) {
  const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path, args: ['--json', '--no-browser'], env });
  try { await core.approve(String((await run.waitFor('device_code')).user_code)); } catch { /* stopped first: it says why */ }
  return run.done;
}

describe('managed credential-store = keychain (root)', notRunWhen(!asRoot ? 'it needs root (real or in a user namespace)' : secretServiceMissing(), { timeout: 120_000 }), () => {
  beforeAll(async () => {
    expect(existsSync(PATH)).toBe(false); // never overwrite a real organization's file
    if (!existsSync(DIR)) {
      mkdirSync(DIR, { mode: 0o755 });
      madeDir = true;
    }
    writeFileSync(PATH, JSON.stringify({ 'credential-store': 'keychain' }));
    chmodSync(PATH, 0o644);
    core = await startCore({ port: 0, interval: 1 });
  });
  afterEach(async () => {
    if (dir) stopBackgroundSignIn(dir.path);
    await session?.stop();
    session = null;
    dir?.cleanup();
  });
  afterAll(async () => {
    rmSync(PATH, { force: true });
    if (madeDir) rmSync(DIR, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    await core?.close();
  });

  it('no session bus: the sign-in stops, naming the organization\'s file; nothing is saved; the person cannot choose the file', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    const asked = core.counters.deviceAuthorizations;
    const done = await signIn({ AGENTSTACK_CREDENTIAL_STORE: 'file' });
    expect(core.counters.deviceAuthorizations).toBe(asked);
    expect(done.code).not.toBe(0);
    expect(done.stdout + done.stderr).toContain(`Your organization requires the refresh token in the system keychain (credential-store = keychain in ${PATH}), and the Secret Service cannot be used here: no D-Bus session bus`);
    expect(existsSync(join(dir.path, 'agentstack-refresh'))).toBe(false);
    // Stopped before any code was asked for: no one approves a sign-in that cannot be kept.
    expect(done.stdout).not.toContain('"device_code"');
    const set = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/config.mjs'), 'set', 'credential-store', 'file'], { env: { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path }, encoding: 'utf8' });
    expect(set.status).not.toBe(0);
    expect(set.stderr).toContain('set by your organization');
  });

  it('no session bus: --status, its JSON, diagnose and the card name the keychain and its fix, never a sign-in that stops', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    const env = { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl };
    const json = JSON.parse(spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--status', '--json'], { env, encoding: 'utf8' }).stdout);
    expect(json.credential_store).toMatchObject({ setting: 'keychain', set_by: 'managed', required: true, keychain: { state: 'unavailable' } });
    const next = String(json.next_step);
    expect(next).toMatch(/^Your organization requires the refresh token in the system keychain \(credential-store = keychain in \/etc\/agentstack\/managed-settings\.json\), and the Secret Service cannot be used here: no D-Bus session bus/);
    expect(next).toContain('Start a Secret Service');
    expect(next).toContain('or ask your administrator');
    const text = spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--status'], { env, encoding: 'utf8' });
    expect(text.stdout).toContain(next);
    const checks = (JSON.parse(spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env, encoding: 'utf8' }).stdout) as { checks: Array<{ id: string; status: string; summary: string; fix?: string }> }).checks;
    expect(checks.find((c) => c.id === 'refresh.file')).toMatchObject({ status: 'FAIL', summary: expect.stringContaining('your organization requires the refresh token in the system keychain'), fix: expect.stringContaining('ask your administrator') });
    expect(checks.find((c) => c.id === 'account')?.fix).toBe(next);
    const card = String((await sessionStart(dir.path, core.baseUrl)).json.additional_context);
    expect(card).toContain('Your organization requires the refresh token in the system keychain');
    expect(card).toContain('or ask your administrator');
    // The sign-in the step names only after the fix: now it stops at once, as the views say.
    const asked = core.counters.deviceAuthorizations;
    expect((await signIn()).code).toBe(1);
    expect(core.counters.deviceAuthorizations).toBe(asked);
  });

  it('a locked collection stops the sign-in too; an unlocked one takes the token', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    session = await startSecretService();
    session.lock();
    const bus = { DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! };
    const asked = core.counters.deviceAuthorizations;
    const refused = await signIn(bus);
    expect(refused.code).toBe(1);
    // Stopped before the server was asked for a code: there was nothing to approve.
    expect(core.counters.deviceAuthorizations).toBe(asked);
    expect(core.counters.requests['POST /api/oauth2/device/authorize'] ?? 0).toBe(0);
    expect(refused.stdout).not.toContain('"device_code"');
    const line = refused.stderr.trim().split('\n').filter((l) => l.startsWith('X '));
    expect(line).toEqual([expect.stringMatching(/^X Your organization requires the refresh token in the system keychain \(credential-store = keychain in \/etc\/agentstack\/managed-settings\.json\), and the Secret Service cannot be used here: the keyring is locked\. Unlock or start your keyring, then sign in again; or ask your administrator\.$/)]);
    expect(existsSync(join(dir.path, 'agentstack-refresh'))).toBe(false);
    // No test entry is left behind in the keyring.
    expect(session.search({ service: 'agentstack-cursor' })).toBe('');

    // The sign-in session start begins (an entry whose Bearer is not there yet) stops the same way, before any code.
    writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
    const started = await sessionStart(dir.path, core.baseUrl, bus);
    expect(String(started.json.additional_context)).toContain('Automatic sign-in could not start: Your organization requires the refresh token in the system keychain');
    expect(String(started.json.additional_context)).toContain('the keyring is locked. Unlock or start your keyring, then sign in again; or ask your administrator.');
    // Never a sign-in that would stop the same way.
    expect(String(started.json.additional_context)).not.toContain('ask your administrator. Sign in with');
    expect(core.counters.deviceAuthorizations).toBe(asked);
    expect(existsSync(join(dir.path, 'agentstack-device.lock'))).toBe(false);
    await session.stop();

    session = await startSecretService();
    const done = await signIn({ DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! });
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir.path, 'agentstack-refresh'), 'utf8'))).toMatchObject({ store: 'keychain' });
    expect(session.lookup({ service: 'agentstack-cursor', server: `${core.baseUrl}/mcp`, account: dir.path })).toMatch(/^\S{20,}$/);
    expect(session.search({ service: 'agentstack-cursor', server: 'keychain-check' })).toBe('');
    // Looked at from the same session (the bus): the token is read back from the keychain.
    const status = spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--status', '--json'], { env: { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl, DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! }, encoding: 'utf8' });
    expect(JSON.parse(status.stdout).credential_store).toEqual({ setting: 'keychain', set_by: 'managed', source: PATH, required: true, refresh_in: 'keychain', reason: 'Secret Service', usable: true, keychain: { state: 'usable', name: 'Secret Service', problem: null } });
  });

  it('a secret-tool that hangs: the sign-in stops within the check\'s bound, before any code', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    const bin = join(dir.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'secret-tool'), '#!/bin/sh\nexec sleep 30\n');
    chmodSync(join(bin, 'secret-tool'), 0o755);
    const asked = core.counters.deviceAuthorizations;
    // A TCP address: spoken only through secret-tool (a Unix socket's bus is spoken to directly).
    const [refused, startMs] = await Promise.all([
      signIn({ PATH: `${bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'tcp:host=127.0.0.1,port=9' }),
      scriptStartMs(DEVICE_CODE_SCRIPT),
    ]);
    expectWithinDeadline(refused.ms, { deadlineMs: STORE_CHECK_BUDGET_MS, baselineMs: startMs, what: 'a sign-in whose keychain hangs' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the Secret Service did not answer within 2 s');
    expect(core.counters.deviceAuthorizations).toBe(asked);
  });

  it('a refresh token in the file is never sent to renew; --status, its JSON and diagnose say why', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    session = await startSecretService();
    const bus = { DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! };
    const issued = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, issued);
    const grants = core.counters.refreshGrants;
    const started = await sessionStart(dir.path, core.baseUrl, { ...bus, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(core.counters.refreshGrants).toBe(grants);
    expect(bearerOf(JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8')))).toBe(issued.access_token);
    expect(String(started.json.additional_context)).toContain('your organization requires the system keychain, so the refresh token in the file is not used');
    const env = { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl, ...bus };
    const text = spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--status'], { env, encoding: 'utf8' });
    expect(text.stdout).toContain('no renewal: your organization requires the system keychain');
    const json = JSON.parse(spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--status', '--json'], { env, encoding: 'utf8' }).stdout);
    expect(json.credential_store).toMatchObject({ setting: 'keychain', set_by: 'managed', source: PATH, required: true, refresh_in: 'file', usable: false });
    const diagnose = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env, encoding: 'utf8' });
    const row = (JSON.parse(diagnose.stdout) as { checks: Array<{ id: string; status: string; summary: string }> }).checks.find((c) => c.id === 'refresh.file')!;
    expect(row.status).toBe('WARN');
    expect(row.summary).toContain(`credential-store keychain (required by ${PATH}); refresh token in file: your organization requires the system keychain`);
    for (const out of [started.stdout, started.stderr, text.stdout, text.stderr, diagnose.stdout]) expect(out).not.toContain(issued.refresh_token!);
  });
});
