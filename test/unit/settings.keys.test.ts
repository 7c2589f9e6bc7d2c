/**
 * What a person and an administrator are told about a value: `config set`'s refusal names the key, the values it
 * takes and what was typed (keys.ts); a managed value that fails its rule is read as the organization evidently meant
 * it or as the strictest value, and `config list` / diagnose say which (managed.ts strictReading).
 */
import { describe, expect, it } from 'vitest';
import { autoLoginDisabled, journalOn, scopePresetFrom, settingSpec, isSettingKey, SETTING_KEYS, type SettingKey } from '../../lib/agentstack/settings/keys.js';
import { strictReading } from '../../lib/agentstack/settings/managed.js';

describe('config set refuses a value, saying what the key takes and what was typed', () => {
  it.each([
    ['auto-login', 'yes', 'auto-login must be true or false (got "yes")'],
    ['scope-preset', 'admin', 'scope-preset must be one of readonly, builder, full (got "admin")'],
    ['oauth-client-id', 'two words', 'oauth-client-id must be 1 to 200 visible ASCII characters, no spaces'],
    ['oauth-client-id', 'x'.repeat(201), 'oauth-client-id must be 1 to 200 visible ASCII characters, no spaces'],
    ['debug', 'verbose', 'debug must be api or off (got "verbose")'],
    ['journal', 'no', 'journal must be on or off (got "no")'],
    ['credential-store', 'vault', 'credential-store must be auto, keychain or file (got "vault")'],
    ['project', 'none', 'project: to remove the pin, unset the key'],
  ] as const)('%s %j: %s', (key, value, message) => {
    expect(() => settingSpec(key).parse(value, key)).toThrowError(expect.objectContaining({ code: 'invalid_config', message }));
  });

  it('a long value is quoted only in part', () => {
    expect(() => settingSpec('journal').parse(`o${'f'.repeat(100)}`, 'journal')).toThrowError(`journal must be on or off (got "o${'f'.repeat(39)}")`);
  });

  it.each([
    ['auto-login', ' True ', 'true'],
    ['oauth-client-id', ' x'.padEnd(201, 'y').slice(0, 201), 'x'.padEnd(200, 'y')],
    ['journal', ' OFF ', 'off'],
    ['journal', 'On', 'on'],
    ['credential-store', ' Keychain ', 'keychain'],
    ['credential-store', 'file', 'file'],
    ['credential-store', 'auto', 'auto'],
    ['scope-preset', ' full ', 'full'],
    ['project', ' 42 ', '42'],
  ] as const)('%s %j is taken as %j', (key, value, taken) => {
    expect(settingSpec(key).parse(value, key)).toBe(taken);
  });
});

describe('what each key\'s value in the settings file stands for in the environment', () => {
  it.each([
    ['journal', 'off', { AGENTSTACK_JOURNAL: 'off' }],
    ['journal', 'on', {}],
    ['debug', 'api', { AGENTSTACK_DEBUG: 'api' }],
    ['debug', 'off', {}],
    ['auto-login', 'false', { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }],
    ['credential-store', 'file', { AGENTSTACK_CREDENTIAL_STORE: 'file' }],
    ['scope-preset', 'full', { AGENTSTACK_SCOPE_PRESET: 'full' }],
    ['https-proxy', 'http://p:1', { HTTPS_PROXY: 'http://p:1' }],
    ['no-proxy', '.corp', { NO_PROXY: '.corp' }],
    ['oauth-client-id', 'c', { AGENTSTACK_OAUTH_CLIENT_ID: 'c' }],
    ['project', '42', {}],
  ] as const)('%s %j: %j', (key, value, env) => {
    expect(settingSpec(key).toEnv(value)).toEqual(env);
  });

  it('each key is read from its own variables, first one set wins', () => {
    expect(settingSpec('credential-store').env).toEqual(['AGENTSTACK_CREDENTIAL_STORE']);
    expect(settingSpec('journal').env).toEqual(['AGENTSTACK_JOURNAL']);
    expect(settingSpec('project').env).toEqual(['AGENTSTACK_PROJECT_ID']);
    expect(settingSpec('https-proxy').env).toEqual(['https_proxy', 'HTTPS_PROXY']);
    expect(settingSpec('no-proxy').env).toEqual(['no_proxy', 'NO_PROXY']);
  });

  it('the defaults config list shows', () => {
    const defaults = Object.fromEntries(SETTING_KEYS.map((k) => [k, settingSpec(k).default]));
    expect(defaults).toEqual({
      'base-url': 'https://agentstack.tech', 'auto-login': 'true', 'scope-preset': 'full', project: null, 'https-proxy': null, 'no-proxy': null,
      'oauth-client-id': 'cursor-plugin', policy: 'default', 'ask-actions': null, 'deny-actions': null, debug: 'off', journal: 'on', 'credential-store': 'auto',
    });
    expect(settingSpec('auto-login').stored).toBe('boolean');
    expect(SETTING_KEYS.filter((k) => settingSpec(k).stored === 'boolean')).toEqual(['auto-login']);
  });

  it('a proxy\'s password is masked where the value is shown', () => {
    expect(settingSpec('https-proxy').show('http://u:pw@p:1')).toBe('http://u:***@p:1');
    expect(settingSpec('journal').show('off')).toBe('off');
  });

  it('the journal is on unless its variable says off (any case); auto-login off only for a variable that says so', () => {
    expect(journalOn({})).toBe(true);
    expect(journalOn({ AGENTSTACK_JOURNAL: 'OFF' })).toBe(false);
    expect(journalOn({ AGENTSTACK_JOURNAL: 'on' })).toBe(true);
    expect(autoLoginDisabled({})).toBe(false);
    expect(autoLoginDisabled({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).toBe(true);
    expect(scopePresetFrom({})).toBe('full');
    expect(scopePresetFrom({ AGENTSTACK_SCOPE_PRESET: 'readonly' })).toBe('readonly');
    expect(() => scopePresetFrom({ AGENTSTACK_SCOPE_PRESET: 'admin' })).toThrow(/AGENTSTACK_SCOPE_PRESET must be one of/);
    expect(isSettingKey('journal')).toBe(true);
    expect(isSettingKey('journals')).toBe(false);
  });
});

describe('a managed value that fails its rule: how it is read, in the words config list and diagnose show', () => {
  const cases: Array<[SettingKey, unknown, { value: string; means: string }]> = [
    ['auto-login', 'YES', { value: 'true', means: 'read as true' }],
    ['auto-login', 1 as never, { value: 'false', means: 'read as false, the strictest: no sign-in starts on its own' }],
    ['auto-login', 'off', { value: 'false', means: 'read as false' }],
    ['auto-login', false, { value: 'false', means: 'read as false' }],
    ['auto-login', ' on ', { value: 'true', means: 'read as true' }],
    ['journal', 'no', { value: 'off', means: 'read as off' }],
    ['journal', false, { value: 'off', means: 'read as off' }],
    ['journal', '0', { value: 'off', means: 'read as off' }],
    ['journal', 'yes', { value: 'on', means: 'read as on' }],
    ['journal', 'sometimes', { value: 'on', means: 'read as on, the strictest: every call is recorded' }],
    ['debug', 'verbose', { value: 'off', means: 'read as off, the strictest: no request is logged' }],
    ['scope-preset', 'admin', { value: 'readonly', means: 'read as readonly, the strictest: a sign-in asks for read capabilities only' }],
    ['no-proxy', 'a b', { value: '', means: 'read as empty, the strictest: no host bypasses the proxy' }],
    ['base-url', 'http://org.example', { value: 'http://org.example', means: 'kept as it is: every sign-in and request stops with its error until it is fixed' }],
    ['https-proxy', 3128, { value: '3128', means: 'kept as it is: every sign-in and request stops with its error until it is fixed' }],
    ['oauth-client-id', { id: 'x' }, { value: '{"id":"x"}', means: 'kept as it is: every sign-in and request stops with its error until it is fixed' }],
  ];
  it.each(cases)('%s %j', (key, raw, reading) => {
    expect(strictReading(key as never, raw)).toEqual(reading);
  });

  it('rules are never read this way (one that is not valid makes every call ask); credential-store is read as keychain', () => {
    for (const key of ['policy', 'ask-actions', 'deny-actions'] as const) expect(strictReading(key, 'nonsense')).toBeNull();
    expect(strictReading('credential-store', 'nonsense')?.value).toBe('keychain');
  });
});

describe('the table of keys, whole: each row\'s name, variables, stored type and environment', () => {
  const rows: Record<SettingKey, { env: string[]; stored: 'string' | 'boolean'; toEnv: [string, Record<string, string>] }> = {
    'base-url': { env: ['AGENTSTACK_BASE_URL'], stored: 'string', toEnv: ['https://org.example', { AGENTSTACK_BASE_URL: 'https://org.example' }] },
    'auto-login': { env: ['AGENTSTACK_DISABLE_AUTO_LOGIN'], stored: 'boolean', toEnv: ['true', {}] },
    'scope-preset': { env: ['AGENTSTACK_SCOPE_PRESET'], stored: 'string', toEnv: ['readonly', { AGENTSTACK_SCOPE_PRESET: 'readonly' }] },
    project: { env: ['AGENTSTACK_PROJECT_ID'], stored: 'string', toEnv: ['7', {}] },
    'https-proxy': { env: ['https_proxy', 'HTTPS_PROXY'], stored: 'string', toEnv: ['http://p:1', { HTTPS_PROXY: 'http://p:1' }] },
    'no-proxy': { env: ['no_proxy', 'NO_PROXY'], stored: 'string', toEnv: ['.corp', { NO_PROXY: '.corp' }] },
    'oauth-client-id': { env: ['AGENTSTACK_OAUTH_CLIENT_ID'], stored: 'string', toEnv: ['c', { AGENTSTACK_OAUTH_CLIENT_ID: 'c' }] },
    policy: { env: ['AGENTSTACK_POLICY'], stored: 'string', toEnv: ['readonly', { AGENTSTACK_POLICY: 'readonly' }] },
    'ask-actions': { env: ['AGENTSTACK_ASK_ACTIONS'], stored: 'string', toEnv: ['a.*', { AGENTSTACK_ASK_ACTIONS: 'a.*' }] },
    'deny-actions': { env: ['AGENTSTACK_DENY_ACTIONS'], stored: 'string', toEnv: ['b.*', { AGENTSTACK_DENY_ACTIONS: 'b.*' }] },
    debug: { env: ['AGENTSTACK_DEBUG'], stored: 'string', toEnv: ['off', {}] },
    journal: { env: ['AGENTSTACK_JOURNAL'], stored: 'string', toEnv: ['on', {}] },
    'credential-store': { env: ['AGENTSTACK_CREDENTIAL_STORE'], stored: 'string', toEnv: ['keychain', { AGENTSTACK_CREDENTIAL_STORE: 'keychain' }] },
  };
  it.each(SETTING_KEYS)('%s', (key) => {
    const spec = settingSpec(key);
    const row = rows[key];
    expect(spec.key).toBe(key);
    expect(spec.env).toEqual(row.env);
    expect(spec.stored).toBe(row.stored);
    expect(spec.toEnv(row.toEnv[0])).toEqual(row.toEnv[1]);
  });

  it.each([
    ['auto-login', 'auto-login must be true or false'],
    ['scope-preset', 'scope-preset must be one of readonly, builder, full'],
    ['debug', 'debug must be api or off'],
    ['journal', 'journal must be on or off'],
    ['credential-store', 'credential-store must be auto, keychain or file'],
  ] as const)('%s quotes the first 40 characters of a long value it refuses', (key, start) => {
    expect(() => settingSpec(key).parse(`z${'q'.repeat(100)}`, key)).toThrowError(`${start} (got "z${'q'.repeat(39)}")`);
  });
});
