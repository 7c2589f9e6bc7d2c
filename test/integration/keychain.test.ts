/**
 * The refresh token in a real Secret Service (GNOME Keyring on a private D-Bus session bus, helpers/secretService.ts)
 * through the built scripts and the reference core: sign-in puts it there and no file under the Cursor dir holds it,
 * session start renews with it, a token in the file moves into the keychain at the next renewal, sign-out removes the
 * entry. A locked collection, a bus without a Secret Service, no bus at all and a keychain that hangs (a silent bus,
 * or a secret-tool for a bus address only it speaks) fall back to the file under `auto` (saying why) and stop the
 * sign-in under `keychain`, before the server is asked for a code.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode } from '../helpers/deviceCode.js';
import { expectWithinDeadline } from '../helpers/deadline.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { secretServiceMissing, startSecretService, type SecretServiceSession } from '../helpers/secretService.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';
import { baseChildEnv } from '../helpers/platform.js';
import { notRunWhen } from '../helpers/notRun.js';

const missing = secretServiceMissing();
let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
let session: SecretServiceSession | null = null;

beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => core?.close());
beforeEach(() => { dir = tempDir('agentstack-keychain-'); });
afterEach(async () => {
  await session?.stop();
  session = null;
  dir.cleanup();
});

const file = (name: string) => join(dir.path, name);
const record = () => JSON.parse(readFileSync(file('agentstack-refresh'), 'utf8')) as Record<string, unknown>;
const entry = () => ({ service: 'agentstack-cursor', server: `${core.baseUrl}/mcp`, account: dir.path });
const bus = (s: SecretServiceSession) => ({ DBUS_SESSION_BUS_ADDRESS: s.env.DBUS_SESSION_BUS_ADDRESS! });

/** The attributes of every item that has `attrs` (`secret-tool search --all` prints them on stderr), locked or not. */
function attributesOf(s: SecretServiceSession, attrs: Record<string, string>): string {
  return spawnSync('secret-tool', ['search', '--all', ...Object.entries(attrs).flat()], { env: s.env, encoding: 'utf8', timeout: 10_000 }).stderr;
}

/** Every file under `root`, recursively, as text. */
function allFiles(root: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) out.push(...allFiles(path));
    else out.push({ path, text: readFileSync(path, 'latin1') });
  }
  return out;
}

async function signIn(env: Record<string, string> = {}, on: RunningCore = core) {
  const run = runDeviceCode({ baseUrl: on.baseUrl, cursorDir: dir.path, args: ['--json', '--no-browser'], env });
  try {
    const code = await run.waitFor('device_code');
    await on.approve(String(code.user_code));
  } catch { /* it stopped before asking: its output says why */ }
  const done = await run.done;
  return { ...done, events: run.events };
}

/** Sign-out, run without blocking this process (the core answers its revocation from here). */
async function logout(env: Record<string, string> = {}, on: RunningCore = core) {
  const run = runDeviceCode({ baseUrl: on.baseUrl, cursorDir: dir.path, args: ['--logout', '--json'], env });
  const done = await run.done;
  return { ...done, event: run.events.at(-1) ?? {} };
}

/** A script that sends nothing to the core (`--status`). */
function script(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, ...args], { env: { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl, ...env }, encoding: 'utf8' });
}

/** Makes the Bearer in mcp.json one that expires within the refresh window, so session start renews it. */
async function expiringBearer(): Promise<void> {
  const issued = await core.issueTokens({ accessTokenTtl: 30 });
  const mcp = JSON.parse(readFileSync(file('mcp.json'), 'utf8'));
  mcp.mcpServers.agentstack.headers.Authorization = `Bearer ${issued.access_token}`;
  writeFileSync(file('mcp.json'), JSON.stringify(mcp, null, 2));
  const r = record();
  r.expires_at = new Date(Date.now() + 30_000).toISOString();
  r.access_token_sha256 = null;
  writeFileSync(file('agentstack-refresh'), JSON.stringify(r), { mode: 0o600 });
}

// Outside CI a machine without them skips these tests, and the run's closing note says why; in CI (.ci/run installs
// them) that fails.
if (missing && process.env.CI) throw new Error(`the Secret Service tests must run in CI: ${missing}; .ci/run installs them`);

describe('the refresh token in a real Secret Service (GNOME Keyring)', notRunWhen(missing, { timeout: 60_000 }), () => {
  it('sign-in puts it in the keychain, no file holds it; session start renews from it; sign-out removes the entry', async () => {
    session = await startSecretService();
    const signedIn = await signIn(bus(session));
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(signedIn.events.find((e) => e.event === 'authorized')).toMatchObject({ refresh_store: 'keychain' });
    expect(signedIn.stderr).not.toContain('warning:');
    const secret = session.lookup(entry());
    expect(secret).toMatch(/^\S{20,}$/);
    for (const f of allFiles(dir.path)) expect(f.text.includes(secret!), f.path).toBe(false);
    expect(record()).toMatchObject({ store: 'keychain', keychain: 'Secret Service', keychain_server: `${core.baseUrl}/mcp`, keychain_account: dir.path });
    expect(record().refresh_token).toBeUndefined();
    expect(statSync(file('agentstack-refresh')).mode & 0o777).toBe(0o600);

    const status = script(['--status'], bus(session));
    expect(status.stdout + status.stderr).toContain('kept in keychain: Secret Service');
    const json = JSON.parse(script(['--status', '--json'], bus(session)).stdout);
    expect(json.refresh_store).toEqual({ store: 'keychain', keychain: 'Secret Service', reason: null });

    // Session start renews with the token the keychain holds; the rotated one goes back there.
    await expiringBearer();
    const before = bearerOf(JSON.parse(readFileSync(file('mcp.json'), 'utf8')));
    const grants = core.counters.refreshGrants;
    const started = await sessionStart(dir.path, core.baseUrl, bus(session));
    expect(String(started.json.additional_context)).toContain('Refreshed the access token');
    expect(core.counters.refreshGrants).toBe(grants + 1);
    expect(bearerOf(JSON.parse(readFileSync(file('mcp.json'), 'utf8')))).not.toBe(before);
    const rotated = session.lookup(entry());
    expect(rotated).toMatch(/^\S{20,}$/);
    expect(rotated).not.toBe(secret);
    for (const f of allFiles(dir.path)) expect(f.text.includes(rotated!), f.path).toBe(false);
    expect(started.stdout + started.stderr).not.toContain(rotated!);

    const out = await logout(bus(session));
    expect(out.code, out.stderr).toBe(0);
    expect(out.event).toMatchObject({ was_signed_in: true, revoked: true });
    expect(session.lookup(entry())).toBeNull();
    expect(session.search({ service: 'agentstack-cursor' })).toBe('');
    expect(existsSync(file('agentstack-refresh'))).toBe(false);
    expect(out.stdout + out.stderr).not.toContain(rotated!);
  });

  it('sign-out removes the entry of a server whose RFC 9728 resource is its origin, even when the record beside it is damaged', async () => {
    session = await startSecretService();
    const rooted = await startCore({ port: 0, interval: 1, variant: 'root-resource-metadata' });
    try {
      const signedIn = await signIn(bus(session), rooted);
      expect(signedIn.code, signedIn.stderr).toBe(0);
      // The entry is keyed by the resource the metadata names (the origin), not by `<base>/mcp`.
      expect(record()).toMatchObject({ store: 'keychain' });
      expect(String(record().keychain_server)).not.toBe(`${rooted.baseUrl}/mcp`);
      expect(attributesOf(session, { service: 'agentstack-cursor', account: dir.path })).toContain(`attribute.server = ${String(record().keychain_server)}`);
      // Another folder's entry for the same server is not this sign-out's to remove.
      session.store({ service: 'agentstack-cursor', server: String(record().keychain_server), account: '/another/.cursor' }, 'rt-of-another-folder');
      writeFileSync(file('agentstack-refresh'), '{"store": "keychain", "keychain_serv');
      const out = await logout(bus(session), rooted);
      expect(out.code, out.stderr).toBe(0);
      expect(session.search({ service: 'agentstack-cursor', account: dir.path })).toBe('');
      expect(attributesOf(session, { service: 'agentstack-cursor' })).toContain('attribute.account = /another/.cursor');
    } finally {
      await rooted.close();
    }
  });

  it('a sign-out whose keychain cannot delete the entry (a locked keyring) says the token stays there', async () => {
    session = await startSecretService();
    expect((await signIn(bus(session))).code).toBe(0);
    session.lock();
    const out = await logout(bus(session));
    expect(out.code, out.stderr).toBe(0);
    expect(out.event.warnings).toContain('The refresh token stays in the Secret Service: it could not be removed (the keyring is locked); remove the "AgentStack refresh token (Cursor plugin)" entry by hand.');
    expect(attributesOf(session, { service: 'agentstack-cursor' })).toContain(`attribute.account = ${dir.path}`);
  });

  it('a token in the file moves into the keychain at the next renewal, and leaves the file', async () => {
    session = await startSecretService();
    const issued = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, issued);
    expect(record().refresh_token).toBe(issued.refresh_token);
    const started = await sessionStart(dir.path, core.baseUrl, bus(session));
    expect(String(started.json.additional_context)).toContain('Refreshed the access token');
    const secret = session.lookup(entry());
    expect(secret).toMatch(/^\S{20,}$/);
    expect(record()).toMatchObject({ store: 'keychain' });
    expect(record().refresh_token).toBeUndefined();
    for (const f of allFiles(dir.path)) {
      expect(f.text.includes(secret!), f.path).toBe(false);
      expect(f.text.includes(issued.refresh_token!), f.path).toBe(false);
    }
  });

  it('credential-store file: the token stays in the file, and an entry of an earlier sign-in is removed', async () => {
    session = await startSecretService();
    expect((await signIn(bus(session))).code).toBe(0);
    expect(session.lookup(entry())).not.toBeNull();
    expect((await logout(bus(session))).code).toBe(0);
    const signedIn = await signIn({ ...bus(session), AGENTSTACK_CREDENTIAL_STORE: 'file' });
    expect(signedIn.code).toBe(0);
    expect(record()).toMatchObject({ store: 'file', store_reason: 'credential-store is file' });
    expect(typeof record().refresh_token).toBe('string');
    expect(session.lookup(entry())).toBeNull();
  });

  it('a locked collection: auto keeps the token in the file and says why; keychain stops the sign-in', async () => {
    session = await startSecretService();
    session.lock();
    // auto asks for a code as before, and falls back to the file at the save.
    const asked = core.counters.deviceAuthorizations;
    const signedIn = await signIn(bus(session));
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(core.counters.deviceAuthorizations).toBe(asked + 1);
    const authorized = signedIn.events.find((e) => e.event === 'authorized')!;
    expect(authorized.refresh_store).toBe('file');
    expect(signedIn.stderr).toContain('not in the system keychain: the keyring is locked.');
    expect(record()).toMatchObject({ store: 'file', store_reason: 'the keyring is locked' });
    const status = script(['--status'], bus(session));
    expect(status.stdout + status.stderr).toContain('kept in file: the keyring is locked');
    const diagnose = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl, ...bus(session) }, encoding: 'utf8' });
    const row = (JSON.parse(diagnose.stdout) as { checks: Array<{ id: string; status: string; summary: string }> }).checks.find((c) => c.id === 'refresh.file')!;
    expect(row.summary).toContain('refresh token in file: the keyring is locked');
    const json = JSON.parse(script(['--status', '--json'], bus(session)).stdout);
    expect(json.credential_store).toEqual({ setting: 'auto', set_by: 'default', source: null, required: false, refresh_in: 'file', reason: 'the keyring is locked', usable: true, keychain: { state: 'present', name: 'Secret Service', problem: null } });

    expect((await logout(bus(session))).code).toBe(0);
    const before = core.counters.deviceAuthorizations;
    const refused = await signIn({ ...bus(session), AGENTSTACK_CREDENTIAL_STORE: 'keychain' });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('credential-store is keychain, and the Secret Service cannot be used here: the keyring is locked');
    // A keychain with no way out is tried before the server is asked for a code, and no test entry stays behind.
    expect(core.counters.deviceAuthorizations).toBe(before);
    expect(refused.events.some((e) => e.event === 'device_code')).toBe(false);
    expect(session.search({ service: 'agentstack-cursor' })).toBe('');
    expect(existsSync(file('agentstack-refresh'))).toBe(false);
    expect(bearerOf(JSON.parse(readFileSync(file('mcp.json'), 'utf8')))).toBeNull();
  });

  it('a session bus without a Secret Service, and no bus at all: auto uses the file (the reason in --status); keychain stops', async () => {
    session = await startSecretService({ keyring: false, bare: true });
    expect((await signIn(bus(session))).code).toBe(0);
    expect(record()).toMatchObject({ store: 'file', store_reason: 'no Secret Service on this session bus' });
    expect(script(['--status'], bus(session)).stdout).toContain('kept in file: no Secret Service on this session bus');
    const refused = await signIn({ ...bus(session), AGENTSTACK_CREDENTIAL_STORE: 'keychain' });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('no Secret Service on this session bus');

    expect((await logout()).code).toBe(0);
    expect((await signIn()).code).toBe(0);
    expect(record()).toMatchObject({ store: 'file', store_reason: 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)' });
  });

  it('config set credential-store takes auto, keychain and file, and refuses anything else', () => {
    const config = (...args: string[]) => spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/config.mjs'), ...args], { env: { ...baseChildEnv(), HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path }, encoding: 'utf8' });
    expect(config('set', 'credential-store', 'keychain').status).toBe(0);
    expect(config('get', 'credential-store').stdout.trim()).toBe('keychain');
    const refused = config('set', 'credential-store', 'vault');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('must be auto, keychain or file');
    expect(config('get', 'credential-store').stdout.trim()).toBe('keychain');
  });

  it('a keychain that hangs is given up after 2 s: auto falls back with the reason shown', async () => {
    // A session bus that accepts the connection and never answers (a locked keyring waiting for a password prompt no
    // one sees), spoken to directly; then a bus at a TCP address, reached only through a secret-tool, that hangs.
    const path = join(dir.path, 'silent-bus');
    const held: Socket[] = [];
    const server = createServer((socket) => { held.push(socket); socket.on('error', () => undefined); });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const bin = join(dir.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'secret-tool'), '#!/bin/sh\nexec sleep 30\n');
    chmodSync(join(bin, 'secret-tool'), 0o755);
    try {
      const envs: Array<Record<string, string>> = [{ DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}` }, { PATH: `${bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'tcp:host=127.0.0.1,port=9' }];
      // The same sign-in with the file store: what this run costs without the hanging keychain.
      const fileStarted = performance.now();
      expect((await signIn({ AGENTSTACK_CREDENTIAL_STORE: 'file' })).code).toBe(0);
      const baselineMs = performance.now() - fileStarted;
      for (const env of envs) {
        const started = performance.now();
        const signedIn = await signIn(env);
        expect(signedIn.code, signedIn.stderr).toBe(0);
        expectWithinDeadline(performance.now() - started, { deadlineMs: 2 * 2_000, baselineMs, what: 'a sign-in whose keychain hangs' });
        expect(record()).toMatchObject({ store: 'file', store_reason: 'the Secret Service did not answer within 2 s (a locked keyring waiting for its password?)' });
        expect(signedIn.stderr).toContain('not in the system keychain: the Secret Service did not answer within 2 s');
      }
      expect(held.length).toBeGreaterThan(0);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
