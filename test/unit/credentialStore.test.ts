/**
 * Where the refresh token goes (credentials/credentialStore.ts), with an in-memory keychain: the file loses the token only
 * after the keychain gave the same secret back; a keychain that fails under `auto` leaves it in the file with the
 * reason; `keychain` never falls back; `file` removes the keychain's copy; reading and deleting name the entry the
 * record names. The real tools: keychainBackends.test.ts and test/integration/keychain.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteRefreshSecrets, fingerprint, loadRefreshToken, saveRefresh } from '../../lib/agentstack/credentials/credentialStore.js';
import { readRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { KeychainError, type Keychain, type SecretKey } from '../../lib/platform/keychain/types.js';
import { tempDir } from '../helpers/repo.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir('agentstack-store-'); });
afterEach(() => dir.cleanup());

const NO_MANAGED = { path: '/nonexistent/managed-settings.json' };
const paths = () => ({ dir: dir.path, refresh: join(dir.path, 'agentstack-refresh') });
const RECORD = { refresh_token: 'rt-first-0123456789abcdef', resource: 'https://a.example/mcp', token_endpoint: 'https://a.example/token', access_token_sha256: 'x' };

function memoryKeychain(options: { giveBack?: (s: string) => string | null; fail?: KeychainError; unavailable?: string; refuseDelete?: (k: SecretKey) => KeychainError | null } = {}) {
  const items = new Map<string, string>();
  const calls: string[] = [];
  const id = (k: SecretKey) => `${k.service}|${k.server}|${k.account}`;
  const keychain: Keychain = {
    name: 'Memory Keychain',
    unavailable: () => options.unavailable ?? null,
    async put(key, secret) { calls.push('put'); if (options.fail) throw options.fail; items.set(id(key), secret); },
    async get(key) { calls.push('get'); if (options.fail) throw options.fail; const s = items.get(id(key)) ?? null; return s === null ? null : options.giveBack ? options.giveBack(s) : s; },
    async delete(key) { calls.push('delete'); const refused = options.refuseDelete?.(key); if (refused) throw refused; return items.delete(id(key)); },
    async forget(match) {
      calls.push('forget');
      for (const k of [...items.keys()]) if (k.startsWith(`${match.service}|`) && k.endsWith(`|${match.account}`)) items.delete(k);
    },
  };
  return { keychain, items, calls };
}

const env = (mode?: string) => (mode ? { AGENTSTACK_CREDENTIAL_STORE: mode } : {});

describe('saveRefresh', () => {
  it('auto with a working keychain: the secret there, read back, and a record without it', async () => {
    const { keychain, items, calls } = memoryKeychain();
    const saved = await saveRefresh({ env: env(), keychain, managed: NO_MANAGED, paths: paths(), previous: null, record: RECORD });
    expect(calls).toEqual(['put', 'get']);
    expect([...items.values()]).toEqual([RECORD.refresh_token]);
    expect(saved).toMatchObject({ store: 'keychain', keychain: 'Memory Keychain', keychain_server: RECORD.resource, keychain_account: dir.path, refresh_token_sha256: fingerprint(RECORD.refresh_token) });
    expect(readFileSync(paths().refresh, 'utf8')).not.toContain(RECORD.refresh_token);
    expect(readRefreshFile(paths().refresh)?.refresh_token).toBeUndefined();
  });

  it('a keychain that gives back another secret: the token stays in the file, with the reason', async () => {
    const { keychain } = memoryKeychain({ giveBack: () => 'something else' });
    let told: string | null = null;
    const saved = await saveRefresh({ env: env(), keychain, managed: NO_MANAGED, paths: paths(), previous: null, record: RECORD, onFallback: (r) => { told = r; } });
    expect(saved).toMatchObject({ store: 'file', refresh_token: RECORD.refresh_token, store_reason: 'the keychain did not give back the token it was given' });
    expect(told).toBe('the keychain did not give back the token it was given');
  });

  it('rotation of a token the keychain held: put only, no read back', async () => {
    const { keychain, calls } = memoryKeychain();
    const first = await saveRefresh({ env: env(), keychain, managed: NO_MANAGED, paths: paths(), previous: null, record: RECORD });
    calls.length = 0;
    await saveRefresh({ env: env(), keychain, managed: NO_MANAGED, paths: paths(), previous: first, record: { ...RECORD, refresh_token: 'rt-second-0123456789abcdef' } });
    expect(calls).toEqual(['put']);
    expect(await loadRefreshToken(readRefreshFile(paths().refresh)!, { env: env(), keychain })).toBe('rt-second-0123456789abcdef');
  });

  it('unavailable under auto: the file, the reason, no call and no fallback notice (nothing was tried)', async () => {
    const { keychain, calls } = memoryKeychain({ unavailable: 'no D-Bus session bus' });
    let told = false;
    const saved = await saveRefresh({ env: env(), keychain, managed: NO_MANAGED, paths: paths(), previous: null, record: RECORD, onFallback: () => { told = true; } });
    expect(saved).toMatchObject({ store: 'file', store_reason: 'no D-Bus session bus' });
    expect(calls).toEqual([]);
    expect(told).toBe(false);
  });

  it('keychain: no fallback, nothing written', async () => {
    const { keychain } = memoryKeychain({ fail: new KeychainError('locked', 'the keyring is locked') });
    await expect(saveRefresh({ env: env('keychain'), keychain, managed: NO_MANAGED, paths: paths(), previous: null, record: RECORD }))
      .rejects.toMatchObject({ code: 'keychain', message: expect.stringContaining('credential-store is keychain, and the Memory Keychain cannot be used here: the keyring is locked') });
    expect(readRefreshFile(paths().refresh)).toBeNull();
  });

  it('file: the keychain is not asked to store, and the copy it held is removed', async () => {
    const { keychain, items, calls } = memoryKeychain();
    const first = await saveRefresh({ env: env(), keychain, managed: NO_MANAGED, paths: paths(), previous: null, record: RECORD });
    calls.length = 0;
    const saved = await saveRefresh({ env: env('file'), keychain, managed: NO_MANAGED, paths: paths(), previous: first, record: RECORD });
    expect(saved).toMatchObject({ store: 'file', store_reason: 'credential-store is file', refresh_token: RECORD.refresh_token });
    expect(calls).toEqual(['delete']);
    expect(items.size).toBe(0);
  });
});

describe('loadRefreshToken and deleteRefreshSecrets', () => {
  it('a record in the file needs no keychain; one in the keychain with no entry says so', async () => {
    const { keychain, calls } = memoryKeychain();
    expect(await loadRefreshToken({ refresh_token: 'rt' }, { env: env(), keychain })).toBe('rt');
    expect(calls).toEqual([]);
    const stored = { store: 'keychain', keychain: 'Memory Keychain', keychain_server: 's', keychain_account: 'a' };
    await expect(loadRefreshToken(stored, { env: env(), keychain })).rejects.toMatchObject({ code: 'keychain', message: expect.stringContaining('gave no AgentStack refresh token') });
  });

  it('sign-out deletes the entry the record names and the one this folder would use for the server', async () => {
    const { keychain, items } = memoryKeychain();
    items.set('agentstack-cursor|old-server|' + dir.path, 'a');
    items.set('agentstack-cursor|https://a.example/mcp|' + dir.path, 'b');
    const stored = { store: 'keychain', keychain_server: 'old-server', keychain_account: dir.path };
    expect(await deleteRefreshSecrets(stored, 'https://a.example/mcp', { env: env(), keychain, managed: NO_MANAGED, paths: paths() })).toEqual([]);
    expect(items.size).toBe(0);
  });
  it('sign-out also removes every other entry of this folder (a damaged record keyed by the origin), and no other folder\'s', async () => {
    const { keychain, items } = memoryKeychain();
    items.set(`agentstack-cursor|https://a.example|${dir.path}`, 'keyed by the origin');
    items.set('agentstack-cursor|https://a.example|/another/.cursor', 'another folder');
    expect(await deleteRefreshSecrets(null, 'https://a.example/mcp', { env: env(), keychain, managed: NO_MANAGED, paths: paths() })).toEqual([]);
    expect([...items.keys()]).toEqual(['agentstack-cursor|https://a.example|/another/.cursor']);
    // A renewal's or a sign-in's clean-up (no server named) never sweeps the folder: it may hold the new entry.
    items.set(`agentstack-cursor|https://a.example|${dir.path}`, 'the new entry');
    await deleteRefreshSecrets({ store: 'keychain', keychain_server: 'old', keychain_account: dir.path }, null, { env: env(), keychain, managed: NO_MANAGED, paths: paths() });
    expect(items.has(`agentstack-cursor|https://a.example|${dir.path}`)).toBe(true);
  });

  it('a delete the keychain refuses: the person is told the token stays there (only for the entry the record names)', async () => {
    const locked = new KeychainError('locked', 'the keyring is locked');
    const stored = { store: 'keychain', keychain: 'Memory Keychain', keychain_server: 'https://a.example', keychain_account: dir.path };
    const named = memoryKeychain({ refuseDelete: (k) => (k.server === 'https://a.example' ? locked : null) });
    expect(await deleteRefreshSecrets(stored, 'https://a.example/mcp', { env: env(), keychain: named.keychain, managed: NO_MANAGED, paths: paths() }))
      .toEqual(['The refresh token stays in the Memory Keychain: it could not be removed (the keyring is locked); remove the "AgentStack refresh token (Cursor plugin)" entry by hand.']);
    expect(await deleteRefreshSecrets(stored, null, { env: env(), keychain: named.keychain, managed: NO_MANAGED, paths: paths() })).toHaveLength(1);
    // A keychain that did not answer is asked nothing more (each call would wait its 2 s again).
    const hanging = memoryKeychain({ refuseDelete: () => new KeychainError('timeout', 'the Secret Service did not answer within 2 s') });
    expect(await deleteRefreshSecrets(stored, 'https://a.example/mcp', { env: env(), keychain: hanging.keychain, managed: NO_MANAGED, paths: paths() })).toHaveLength(1);
    expect(hanging.calls).toEqual(['delete']);
    // The entry this folder would use for the server is a guess: its failure says nothing.
    const derived = memoryKeychain({ refuseDelete: (k) => (k.server === 'https://a.example/mcp' ? locked : null) });
    expect(await deleteRefreshSecrets(stored, 'https://a.example/mcp', { env: env(), keychain: derived.keychain, managed: NO_MANAGED, paths: paths() })).toEqual([]);
  });
});
