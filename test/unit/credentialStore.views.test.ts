/**
 * What credentials/storeFacts.ts and storeCheck.ts say and leave behind where the other tests do not look: a setting
 * written loosely (case, spaces) or not one of the three, who set it as the line names them, a line with no refresh
 * token or no reason, and a keychain that gives back another secret than the check's (its test entry is removed all
 * the same).
 */
import { describe, expect, it } from 'vitest';
import { checkKey, tryKeychain } from '../../lib/agentstack/credentials/storeCheck.js';
import { credentialStoreFacts, credentialStoreText } from '../../lib/agentstack/credentials/storeFacts.js';
import type { Keychain, SecretKey } from '../../lib/platform/keychain/types.js';

describe('the credential store as the views tell it', () => {
  it('a setting written loosely is read as meant; one that is none of auto, keychain and file is auto', () => {
    expect(credentialStoreFacts({ value: '  KeyChain ', origin: 'env', source: 'AGENTSTACK_CREDENTIAL_STORE' }, null)).toMatchObject({ setting: 'keychain', required: false });
    expect(credentialStoreFacts({ value: 'File', origin: 'settings', source: null }, null).setting).toBe('file');
    expect(credentialStoreFacts({ value: 'vault', origin: 'settings', source: null }, null).setting).toBe('auto');
    expect(credentialStoreFacts({ value: null, origin: 'default', source: null }, null).setting).toBe('auto');
  });

  it('the line names who set it: the variable or file, else where it came from; no refresh token, or no reason', () => {
    const byEnv = credentialStoreFacts({ value: 'file', origin: 'env', source: 'AGENTSTACK_CREDENTIAL_STORE' }, null);
    expect(credentialStoreText(byEnv)).toBe('credential-store file (set by AGENTSTACK_CREDENTIAL_STORE); no refresh token stored');
    const bySettings = credentialStoreFacts({ value: 'keychain', origin: 'settings', source: null }, { store: 'keychain', keychain: null, reason: null });
    expect(bySettings).toMatchObject({ refresh_in: 'keychain', reason: null, usable: true });
    expect(credentialStoreText(bySettings)).toBe('credential-store keychain (set by settings); refresh token in keychain');
  });

  it('the organization sets file or auto: nothing is required, a token in the file is used', () => {
    for (const value of ['file', 'auto']) {
      expect(credentialStoreFacts({ value, origin: 'managed', source: '/etc/agentstack/managed-settings.json' }, { store: 'file', keychain: null, reason: null })).toMatchObject({ required: false, usable: true });
    }
  });

  it('an organization\'s keychain with no file named: the refusal of a token in the file still holds', () => {
    expect(credentialStoreFacts({ value: 'keychain', origin: 'managed', source: null }, { store: 'file', keychain: null, reason: null })).toMatchObject({ required: true, usable: false });
  });
});

describe('the keychain check', () => {
  it('its entry says what it is; a put that fails leaves nothing to delete', async () => {
    const labels: string[] = [];
    const calls: string[] = [];
    const keychain: Keychain = {
      name: 'Memory Keychain',
      unavailable: () => null,
      async put(_key, _secret, label) { calls.push('put'); labels.push(label ?? ''); throw new Error('the keyring is locked'); },
      async get() { calls.push('get'); return null; },
      async delete() { calls.push('delete'); return false; },
    };
    expect(await tryKeychain(keychain, checkKey({ dir: '/tmp/cursor' }))).toBe('the keyring is locked');
    expect(labels).toEqual(['AgentStack keychain check (removed at once)']);
    expect(calls).toEqual(['put']);
  });

  it('a keychain that gives back another secret: the check says so, and its test entry is removed', async () => {
    const items = new Map<string, string>();
    const calls: string[] = [];
    const id = (k: SecretKey) => `${k.server}|${k.account}`;
    const keychain: Keychain = {
      name: 'Memory Keychain',
      unavailable: () => null,
      async put(key, secret) { calls.push('put'); items.set(id(key), secret); },
      async get() { calls.push('get'); return 'not the secret it was given'; },
      async delete(key) { calls.push('delete'); return items.delete(id(key)); },
    };
    expect(await tryKeychain(keychain, checkKey({ dir: '/tmp/cursor' }))).toMatch(/did not give back the test entry/);
    expect(calls).toEqual(['put', 'get', 'delete']);
    expect(items.size).toBe(0);
  });
});
