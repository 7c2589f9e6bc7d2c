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

  it('an organization\'s keychain with no file named: the refusal of a token in the file still holds', () => {
    expect(credentialStoreFacts({ value: 'keychain', origin: 'managed', source: null }, { store: 'file', keychain: null, reason: null })).toMatchObject({ required: true, usable: false });
  });
});

describe('the keychain check', () => {
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
