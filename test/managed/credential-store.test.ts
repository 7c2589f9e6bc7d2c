/**
 * An organization requires the refresh token in the system keychain (`credential-store: keychain` in
 * /etc/agentstack/managed-settings.json, as root): with no keychain to use (no session bus; a locked collection of
 * a real GNOME Keyring) the sign-in stops, names the file and saves nothing, where `auto` would use the file; the
 * person cannot set it back; with an unlocked keyring the sign-in goes through into the keychain.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { managedSettingsPath } from '../../lib/agentstack/settings/managed.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { baseChildEnv } from '../helpers/platform.js';
import { secretServiceMissing, startSecretService, type SecretServiceSession } from '../helpers/secretService.js';

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

describe.skipIf(!asRoot || secretServiceMissing() !== null)('managed credential-store = keychain (root)', { timeout: 120_000 }, () => {
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
    await session?.stop();
    session = null;
    dir?.cleanup();
  });
  afterAll(async () => {
    rmSync(PATH, { force: true });
    if (madeDir) rmSync(DIR, { recursive: true, force: true });
    await core?.close();
  });

  it('no session bus: the sign-in stops, naming the organization\'s file; nothing is saved; the person cannot choose the file', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    const done = await signIn({ AGENTSTACK_CREDENTIAL_STORE: 'file' });
    expect(done.code).not.toBe(0);
    expect(done.stdout + done.stderr).toContain(`Your organization requires the refresh token in the system keychain (credential-store = keychain in ${PATH}), and the Secret Service cannot be used here: no D-Bus session bus`);
    expect(existsSync(join(dir.path, 'agentstack-refresh'))).toBe(false);
    // Stopped before any code was asked for: no one approves a sign-in that cannot be kept.
    expect(done.stdout).not.toContain('"device_code"');
    const set = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/config.mjs'), 'set', 'credential-store', 'file'], { env: { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path }, encoding: 'utf8' });
    expect(set.status).not.toBe(0);
    expect(set.stderr).toContain('set by your organization');
  });

  it('a locked collection stops the sign-in too; an unlocked one takes the token', async () => {
    dir = tempDir('agentstack-managed-keychain-');
    session = await startSecretService();
    session.lock();
    const bus = { DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! };
    const refused = await signIn(bus);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('the keyring is locked');
    expect(existsSync(join(dir.path, 'agentstack-refresh'))).toBe(false);
    await session.stop();

    session = await startSecretService();
    const done = await signIn({ DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! });
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir.path, 'agentstack-refresh'), 'utf8'))).toMatchObject({ store: 'keychain' });
    expect(session.lookup({ service: 'agentstack-cursor', server: `${core.baseUrl}/mcp`, account: dir.path })).toMatch(/^\S{20,}$/);
  });
});
