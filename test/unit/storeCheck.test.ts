/**
 * The keychain check a sign-in makes before it asks for a code (credentials/storeCheck.ts), with in-memory keychains: only
 * under `keychain` is anything tried; a throwaway entry is put, read back and deleted; a locked, failing, forgetful or
 * hanging keychain stops it with the save's own words, within the check's bound; and the pure view of the store
 * (credentials/storeFacts.ts) says when a token in the file is not used.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertStoreWorks, checkKey, needsStoreCheck, tryKeychain } from '../../lib/agentstack/credentials/storeCheck.js';
import { credentialStoreFacts, credentialStoreText, fileTokenRefusal, keychainBlock } from '../../lib/agentstack/credentials/storeFacts.js';
import { storyOf } from '../../lib/agentstack/state/story.js';
import { lookAtKeychain } from '../../lib/agentstack/credentials/keychainLook.js';
import { KeychainError, type Keychain, type SecretKey } from '../../lib/platform/keychain/types.js';
import { managedSettingsPath } from '../../lib/agentstack/settings/managed.js';
import { tempDir } from '../helpers/repo.js';
import { expectWithinDeadline, timed, timerMs } from '../helpers/deadline.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir('agentstack-store-check-'); });
afterEach(() => dir.cleanup());

const NO_MANAGED = { path: '/nonexistent/managed-settings.json' };

function memoryKeychain(options: { fail?: KeychainError; forget?: boolean; hang?: boolean; unavailable?: string } = {}) {
  const items = new Map<string, string>();
  const calls: string[] = [];
  const id = (k: SecretKey) => `${k.service}|${k.server}|${k.account}`;
  const hang = () => new Promise<never>(() => { /* never answers */ });
  const keychain: Keychain = {
    name: 'Memory Keychain',
    unavailable: () => options.unavailable ?? null,
    async put(key, secret) { calls.push('put'); if (options.hang) return hang(); if (options.fail) throw options.fail; if (!options.forget) items.set(id(key), secret); },
    async get(key) { calls.push('get'); return items.get(id(key)) ?? null; },
    async delete(key) { calls.push('delete'); return items.delete(id(key)); },
  };
  return { keychain, items, calls };
}

describe('the keychain check before a sign-in', () => {
  it('only credential-store = keychain needs it', () => {
    expect(needsStoreCheck({ mode: 'keychain', managedBy: '/etc/agentstack/managed-settings.json' })).toBe(true);
    expect(needsStoreCheck({ mode: 'keychain', managedBy: null })).toBe(true);
    expect(needsStoreCheck({ mode: 'auto', managedBy: null })).toBe(false);
    expect(needsStoreCheck({ mode: 'file', managedBy: null })).toBe(false);
  });

  it('a working keychain: put, read back, delete, and nothing left behind', async () => {
    const { keychain, items, calls } = memoryKeychain();
    expect(await tryKeychain(keychain, checkKey({ dir: dir.path }))).toBeNull();
    expect(calls).toEqual(['put', 'get', 'delete']);
    expect(items.size).toBe(0);
    await expect(assertStoreWorks({ env: { AGENTSTACK_CREDENTIAL_STORE: 'keychain' }, keychain, managed: NO_MANAGED, paths: { dir: dir.path } })).resolves.toBeUndefined();
  });

  it('the throwaway entry never shares a real entry\'s key', () => {
    const a = checkKey({ dir: dir.path });
    expect(a.server).toBe('keychain-check');
    expect(a.account).not.toBe(checkKey({ dir: dir.path }).account);
  });

  it('auto and file try nothing, even with a keychain that cannot work', async () => {
    for (const mode of ['auto', 'file']) {
      const { keychain, calls } = memoryKeychain({ fail: new KeychainError('locked', 'the keyring is locked') });
      await assertStoreWorks({ env: { AGENTSTACK_CREDENTIAL_STORE: mode }, keychain, managed: NO_MANAGED, paths: { dir: dir.path } });
      expect(calls).toEqual([]);
    }
  });

  it('keychain: unavailable, locked, forgetful: stops with the reason, in the save\'s words', async () => {
    const run = (kc: Keychain) => assertStoreWorks({ env: { AGENTSTACK_CREDENTIAL_STORE: 'keychain' }, keychain: kc, managed: NO_MANAGED, paths: { dir: dir.path } });
    const none = memoryKeychain({ unavailable: 'no D-Bus session bus' });
    await expect(run(none.keychain)).rejects.toMatchObject({ code: 'keychain', message: expect.stringContaining('credential-store is keychain, and the Memory Keychain cannot be used here: no D-Bus session bus.') });
    expect(none.calls).toEqual([]);
    await expect(run(memoryKeychain({ fail: new KeychainError('locked', 'the keyring is locked') }).keychain)).rejects.toMatchObject({ code: 'keychain', message: expect.stringContaining('cannot be used here: the keyring is locked') });
    const forgetful = memoryKeychain({ forget: true });
    await expect(run(forgetful.keychain)).rejects.toMatchObject({ message: expect.stringContaining('did not give back the test entry') });
    await expect(run(null as unknown as Keychain)).rejects.toMatchObject({ code: 'keychain', message: expect.stringContaining('no keychain this plugin can use') });
  });

  it('a keychain that never answers is given up within the check\'s bound', async () => {
    const { keychain } = memoryKeychain({ hang: true });
    // The same check against a keychain that answers, in this run: what the check's own work costs here now.
    const started = performance.now();
    expect(await tryKeychain(memoryKeychain().keychain, checkKey({ dir: dir.path }), 300)).toBeNull();
    const baselineMs = performance.now() - started;
    const [{ value: problem, ms }, deadlineMs] = await Promise.all([timed(() => tryKeychain(keychain, checkKey({ dir: dir.path }), 300)), timerMs(300)]);
    expect(problem).toBe('the Memory Keychain did not finish a test entry within 0.3 s');
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 300, baselineMs, what: 'the check of a keychain that never answers' });
  });

  it('an organization\'s keychain names its file', async () => {
    const managed = dir.path + '/managed-settings.json';
    const { writeFileSync } = await import('node:fs');
    writeFileSync(managed, JSON.stringify({ 'credential-store': 'keychain' }));
    await expect(assertStoreWorks({ env: { AGENTSTACK_CREDENTIAL_STORE: 'keychain' }, keychain: memoryKeychain({ fail: new KeychainError('locked', 'the keyring is locked') }).keychain, managed: { path: managed }, paths: { dir: dir.path } }))
      .rejects.toMatchObject({ message: expect.stringMatching(/^Your organization requires the refresh token in the system keychain \(credential-store = keychain in .*managed-settings\.json\), and the Memory Keychain cannot be used here: the keyring is locked\. /) });
    expect(managedSettingsPath('linux')).toBe('/etc/agentstack/managed-settings.json');
  });
});

describe('the credential store as the views tell it', () => {
  const MANAGED = { value: 'keychain', origin: 'managed' as const, source: '/etc/agentstack/managed-settings.json' };

  it('a token in the file under an organization\'s keychain is not used; under a personal keychain or auto it is', () => {
    expect(fileTokenRefusal({ mode: 'keychain', managedBy: MANAGED.source }, { store: 'file' })).toContain('not used');
    expect(fileTokenRefusal({ mode: 'keychain', managedBy: MANAGED.source }, { store: undefined })).toContain('not used');
    expect(fileTokenRefusal({ mode: 'keychain', managedBy: MANAGED.source }, { store: 'keychain' })).toBeNull();
    expect(fileTokenRefusal({ mode: 'keychain', managedBy: null }, { store: 'file' })).toBeNull();
    expect(fileTokenRefusal({ mode: 'auto', managedBy: MANAGED.source }, { store: 'file' })).toBeNull();
  });

  it('the keychain as a view found it, decided once: a locked keyring, no Secret Service under a required keychain, a bus that appeared', () => {
    const locked = { state: 'locked', name: 'Secret Service', problem: 'the keyring is locked' } as const;
    const inKeychain = credentialStoreFacts({ value: 'auto', origin: 'default', source: null }, { store: 'keychain', keychain: 'Secret Service', reason: null }, locked);
    expect(inKeychain).toMatchObject({ refresh_in: 'keychain', usable: false, reason: 'Secret Service, which cannot be read now: the keyring is locked', keychain: { state: 'locked' } });
    expect(keychainBlock(inKeychain)).toEqual({ problem: 'the refresh token is kept in the Secret Service, which cannot be read now: the keyring is locked', fix: 'Unlock your keyring.', signInStops: false });
    const noService = { state: 'unavailable', name: 'Secret Service', problem: 'no D-Bus session bus' } as const;
    const required = credentialStoreFacts(MANAGED, null, noService);
    const block = keychainBlock(required)!;
    expect(block.signInStops).toBe(true);
    expect(block.problem).toContain('your organization requires the refresh token in the system keychain');
    expect(block.fix).toMatch(/^Start a Secret Service .*; or ask your administrator \(credential-store = keychain in \/etc\/agentstack\/managed-settings\.json\)\.$/);
    // Under auto the sign-in falls back to the file: nothing blocks it.
    expect(keychainBlock(credentialStoreFacts(undefined, null, noService))).toBeNull();
    // A bus that appeared after the token went to the file: the record's "no D-Bus session bus" is not repeated as now.
    const now = credentialStoreFacts(undefined, { store: 'file', keychain: null, reason: 'no D-Bus session bus' }, { state: 'present', name: 'Secret Service', problem: null });
    expect(now.reason).toBe('no D-Bus session bus when it was saved; there is one now, and the next renewal tries the Secret Service again');
    // Another reason (a locked keyring) is not judged by a look that made no call.
    expect(credentialStoreFacts(undefined, { store: 'file', keychain: null, reason: 'the keyring is locked' }, { state: 'present', name: 'Secret Service', problem: null }).reason).toBe('the keyring is locked');
    // Without a look (the hooks), the record's word stands.
    expect(credentialStoreFacts(undefined, { store: 'file', keychain: null, reason: 'no D-Bus session bus' }).reason).toBe('no D-Bus session bus');
  });

  it('the look a view takes: the record\'s token read back, the sign-in\'s own check under keychain, nothing called under auto or file', async () => {
    const settings = (value: string, origin: 'settings' | 'managed' = 'settings') => ({ rows: [{ key: 'credential-store' as const, value, origin, source: 'x' }] });
    const stored = { store: 'keychain' as const, keychain: 'Memory Keychain', keychain_server: 'https://a.example/mcp', keychain_account: dir.path };
    const key = { service: 'agentstack-cursor', server: 'https://a.example/mcp', account: dir.path };
    const kept = memoryKeychain();
    await kept.keychain.put(key, 'rt-0123456789', 'l');
    expect(await lookAtKeychain({ env: {}, settings: settings('auto'), keychain: kept.keychain, paths: { dir: dir.path }, stored })).toEqual({ state: 'usable', name: 'Memory Keychain', problem: null });
    const removed = memoryKeychain();
    expect((await lookAtKeychain({ env: {}, settings: settings('auto'), keychain: removed.keychain, paths: { dir: dir.path }, stored })).state).toBe('missing');
    const locked: Keychain = { ...kept.keychain, get: async () => { throw new KeychainError('locked', 'the keyring is locked'); } };
    expect(await lookAtKeychain({ env: {}, settings: settings('auto'), keychain: locked, paths: { dir: dir.path }, stored })).toEqual({ state: 'locked', name: 'Memory Keychain', problem: 'the keyring is locked' });
    const none = memoryKeychain({ unavailable: 'no D-Bus session bus' });
    expect((await lookAtKeychain({ env: {}, settings: settings('keychain', 'managed'), keychain: none.keychain, paths: { dir: dir.path }, stored: null })).state).toBe('unavailable');
    // Under keychain with no token: the sign-in's own check (put, read back, delete).
    const checked = memoryKeychain({ fail: new KeychainError('locked', 'the keyring is locked') });
    expect(await lookAtKeychain({ env: {}, settings: settings('keychain'), keychain: checked.keychain, paths: { dir: dir.path }, stored: null })).toMatchObject({ state: 'locked' });
    expect(checked.calls).toEqual(['put']);
    // Under auto with no token in it: no call at all; under file: not asked.
    const idle = memoryKeychain();
    expect((await lookAtKeychain({ env: {}, settings: settings('auto'), keychain: idle.keychain, paths: { dir: dir.path }, stored: null })).state).toBe('present');
    expect((await lookAtKeychain({ env: {}, settings: settings('file'), keychain: idle.keychain, paths: { dir: dir.path }, stored: null })).state).toBe('not_asked');
    expect(idle.calls).toEqual([]);
  });

  it('the story takes the keychain\'s fix as its next step, never a sign-in that would stop', () => {
    const block = { problem: 'your organization requires the refresh token in the system keychain (credential-store = keychain in /etc/agentstack/managed-settings.json), and the keychain cannot be used here: no D-Bus session bus', fix: 'Start a Secret Service; or ask your administrator.', signInStops: true };
    const story = storyOf({ account: { state: 'never_signed_in', apiKey: false }, refreshable: false, mcpJson: '~/.cursor/mcp.json', mcpErrorAt: null, waiting: null, keychain: block });
    expect(story.next).toMatch(/^Your organization requires .*no D-Bus session bus\. Start a Secret Service; or ask your administrator\. Then sign in with /);
    const renew = storyOf({ account: { state: 'expired_renewable', apiKey: false }, refreshable: true, mcpJson: '~/.cursor/mcp.json', mcpErrorAt: null, waiting: null, keychain: { problem: 'the refresh token is kept in the Secret Service, which cannot be read now: the keyring is locked', fix: 'Unlock your keyring.', signInStops: false } });
    expect(renew).toMatchObject({ underway: false, next: 'The refresh token is kept in the Secret Service, which cannot be read now: the keyring is locked. Unlock your keyring. The plugin then renews the token by itself.' });
  });

  it('the facts and their line', () => {
    const refused = credentialStoreFacts(MANAGED, { store: 'file', keychain: null, reason: 'the keyring is locked' });
    expect(refused).toEqual({ setting: 'keychain', set_by: 'managed', source: MANAGED.source, required: true, refresh_in: 'file', reason: expect.stringContaining('requires the system keychain'), usable: false });
    expect(credentialStoreText(refused)).toMatch(/^credential-store keychain \(required by \/etc\/agentstack\/managed-settings\.json\); refresh token in file: your organization requires/);
    const kept = credentialStoreFacts(MANAGED, { store: 'keychain', keychain: 'Secret Service', reason: null });
    expect(kept).toMatchObject({ required: true, refresh_in: 'keychain', reason: 'Secret Service', usable: true });
    const fallback = credentialStoreFacts({ value: 'auto', origin: 'default', source: null }, { store: 'file', keychain: null, reason: 'no D-Bus session bus' });
    expect(fallback).toMatchObject({ setting: 'auto', required: false, refresh_in: 'file', reason: 'no D-Bus session bus', usable: true });
    expect(credentialStoreText(fallback)).toBe('credential-store auto (the default); refresh token in file: no D-Bus session bus');
    expect(credentialStoreFacts(undefined, null)).toMatchObject({ setting: 'auto', set_by: 'default', refresh_in: null, usable: true });
    expect(credentialStoreFacts({ value: 'keychain', origin: 'settings', source: '~/.cursor/agentstack-settings.json' }, { store: 'file', keychain: null, reason: null })).toMatchObject({ required: false, usable: true });
  });
});
