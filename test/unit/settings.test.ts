/**
 * The settings, pure and on disk: each key's rule (the same one its environment variable passes), the reader the
 * hooks use (a broken file or value is reported and skipped, never thrown), and the precedence environment >
 * settings file > default, with the environment the rest of the plugin reads and the proxy options for undici.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySettings, projectRow, settingsTable } from '../../lib/agentstack/settings/effective.js';
import { readSettingsFile } from '../../lib/agentstack/settings/file.js';
import { SETTING_KEYS, autoLoginDisabled, envValueOf, journalOn, scopePresetFrom, settingSpec } from '../../lib/agentstack/settings/keys.js';
import { clientFromEnv } from '../../lib/agentstack/auth/oauth.js';
import { resolveBaseUrl } from '../../lib/agentstack/server/baseUrl.js';
import { maskUrlCredentials, parseNoProxy, parseProxyUrl } from '../../lib/platform/net/proxyUrl.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
let dir: string;
let path: string;
beforeEach(() => {
  tmp = tempDir('agentstack-settings-');
  dir = join(tmp.path, 'cursor');
  mkdirSync(dir);
  path = join(dir, 'agentstack-settings.json');
});
afterEach(() => tmp.cleanup());

const env = (extra: Record<string, string> = {}) => ({ AGENTSTACK_CURSOR_DIR: dir, ...extra });
const write = (value: unknown) => writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));

describe('each key has the rule of its environment variable', () => {
  it.each([
    ['base-url', 'https://staging.example.com/', 'https://staging.example.com'],
    ['base-url', 'http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['auto-login', 'FALSE', 'false'],
    ['scope-preset', 'readonly', 'readonly'],
    ['project', '42', '42'],
    ['https-proxy', 'http://proxy.corp:3128/', 'http://proxy.corp:3128'],
    ['no-proxy', '.corp.example, 10.0.0.1 localhost:8080', '.corp.example,10.0.0.1,localhost:8080'],
    ['oauth-client-id', 'my-client', 'my-client'],
    ['debug', ' API ', 'api'],
    ['debug', 'off', 'off'],
  ] as const)('%s accepts %j as %j', (key, value, normalized) => {
    expect(settingSpec(key).parse(value, key)).toBe(normalized);
  });

  it.each([
    ['base-url', 'http://staging.example.com', /must be https:\/\//],
    ['base-url', 'https://x.example/?a=1', /query or fragment/],
    ['base-url', 'not a url', /is not a URL/],
    ['auto-login', 'yes', /true or false/],
    ['scope-preset', 'admin', /must be one of .*full/],
    ['project', '1', /integer greater than 1/],
    ['project', 'abc', /integer greater than 1/],
    ['project', 'none', /unset the key/],
    ['https-proxy', 'socks5://proxy:1080', /http:\/\/ or https:\/\//],
    ['https-proxy', 'http://proxy:3128/path', /no path/],
    ['no-proxy', 'a b/c', /not a host name/],
    ['oauth-client-id', 'two words', /visible ASCII/],
    ['debug', '1', /api or off/],
  ] as const)('%s refuses %j with invalid_config', (key, value, message) => {
    expect(() => settingSpec(key).parse(value, key)).toThrowError(expect.objectContaining({ code: 'invalid_config', message: expect.stringMatching(message) }));
  });

  it('the same rule refuses the same value from the environment (base-url)', () => {
    expect(() => resolveBaseUrl({ AGENTSTACK_BASE_URL: 'http://staging.example.com' })).toThrow(/must be https:\/\//);
  });

  it('masks a proxy password for display, and only the password', () => {
    expect(maskUrlCredentials('http://user:s3cret@proxy:3128')).toBe('http://user:***@proxy:3128');
    expect(maskUrlCredentials('http://token@proxy:3128')).toBe('http://***@proxy:3128');
    expect(maskUrlCredentials('http://proxy:3128')).toBe('http://proxy:3128');
    expect(() => parseProxyUrl('http://user:s3cret@', 'x')).toThrow(/not a URL/);
    expect(() => parseProxyUrl('nope', 'x')).toThrowError(expect.objectContaining({ message: expect.not.stringContaining('s3cret') }));
    expect(parseNoProxy('*', 'x')).toBe('*');
  });
});

describe('the reader the hooks use', () => {
  it('no file: nothing set, no problem', () => {
    expect(readSettingsFile(path)).toMatchObject({ exists: false, broken: false, values: {}, problems: [] });
  });

  it('not JSON, or not an object: broken, reported, nothing used', () => {
    for (const text of ['{"base-url": ', '[1, 2]', '"text"']) {
      write(text);
      const read = readSettingsFile(path);
      expect(read).toMatchObject({ exists: true, broken: true, values: {} });
      expect(read.problems).toHaveLength(1);
      expect(read.problems[0]).toContain(path);
      expect(read.problems[0]).toContain('ignored');
    }
  });

  it('a folder in its place: broken, reported, not thrown', () => {
    mkdirSync(path);
    expect(readSettingsFile(path)).toMatchObject({ exists: true, broken: true, values: {} });
  });

  it('one bad value is skipped and named; the others are used; unknown keys are ignored', () => {
    write({ 'base-url': 'ftp://x', 'auto-login': 'false', 'scope-preset': 'builder', 'https-proxy': 7, 'no-proxy': '.corp', later: 'kept', __internal__: {} });
    const read = readSettingsFile(path);
    expect(read.broken).toBe(false);
    expect(read.values).toEqual({ 'scope-preset': 'builder', 'no-proxy': '.corp' });
    expect(read.problems).toHaveLength(3);
    expect(read.problems.join('\n')).toMatch(/base-url in .* must be https/);
    expect(read.problems.join('\n')).toMatch(/auto-login in .* must be a JSON boolean/);
    expect(read.problems.join('\n')).toMatch(/https-proxy in .* must be a JSON string/);
  });

  it('an empty file is an empty object', () => {
    write('');
    expect(readSettingsFile(path)).toMatchObject({ exists: true, broken: false, values: {}, problems: [] });
  });
});

describe('precedence: environment > settings file > default', () => {
  it('defaults when nothing is set', () => {
    const { rows, problems } = settingsTable(env());
    expect(rows.map((r) => r.key)).toEqual([...SETTING_KEYS]);
    expect(rows.every((r) => r.origin === 'default')).toBe(true);
    expect(rows.find((r) => r.key === 'base-url')!.value).toBe('https://agentstack.tech');
    expect(rows.find((r) => r.key === 'oauth-client-id')!.value).toBe('cursor-plugin');
    expect(problems).toEqual([]);
  });

  it('the settings file fills what the environment leaves unset; the environment wins where set', () => {
    write({ 'base-url': 'https://staging.example.com', 'auto-login': false, 'scope-preset': 'readonly', 'https-proxy': 'http://u:pw@proxy:3128', 'no-proxy': '.corp', 'oauth-client-id': 'from-settings', policy: 'confirm-writes', 'deny-actions': 'a.*, b', 'ask-actions': 'c', debug: 'api', journal: 'off' });
    const applied = applySettings(env({ AGENTSTACK_BASE_URL: 'https://env.example.com', NO_PROXY: '', AGENTSTACK_ASK_ACTIONS: 'storage.*' }));
    const origin = Object.fromEntries(applied.rows.map((r) => [r.key, `${r.origin}:${r.value}`]));
    expect(origin).toEqual({
      'base-url': 'env:https://env.example.com',
      'auto-login': 'settings:false',
      'scope-preset': 'settings:readonly',
      'https-proxy': 'settings:http://u:***@proxy:3128',
      'no-proxy': 'settings:.corp',
      'oauth-client-id': 'settings:from-settings',
      policy: 'settings:confirm-writes',
      'ask-actions': 'env:storage.*',
      'deny-actions': 'settings:a.*,b',
      debug: 'settings:api',
      journal: 'settings:off',
      'credential-store': 'default:auto',
    });
    expect(applied.env.AGENTSTACK_DEBUG).toBe('api');
    expect(applied.env.AGENTSTACK_JOURNAL).toBe('off');
    expect(journalOn(applied.env)).toBe(false);
    // The environment the plugin reads: each setting stands in for its unset variable; set variables are untouched.
    expect(applied.env.AGENTSTACK_BASE_URL).toBe('https://env.example.com');
    expect(applied.env.AGENTSTACK_DISABLE_AUTO_LOGIN).toBe('1');
    expect(applied.env.AGENTSTACK_SCOPE_PRESET).toBe('readonly');
    expect(applied.env.HTTPS_PROXY).toBe('http://u:pw@proxy:3128');
    expect(applied.env.NO_PROXY).toBe('.corp');
    expect(clientFromEnv(applied.env).clientId).toBe('from-settings');
    expect(scopePresetFrom(applied.env)).toBe('readonly');
    // undici is given what is shown.
    expect(applied.proxy).toEqual({ httpsProxy: 'http://u:pw@proxy:3128', noProxy: '.corp' });
  });

  it('a proxy variable set in the environment wins, and undici is given the value shown', () => {
    write({ 'https-proxy': 'http://settings-proxy:3128', 'no-proxy': '.corp' });
    const applied = applySettings(env({ https_proxy: 'http://env-proxy:8080' }));
    expect(applied.rows.find((r) => r.key === 'https-proxy')).toMatchObject({ origin: 'env', source: 'https_proxy', value: 'http://env-proxy:8080' });
    expect(applied.proxy).toEqual({ httpsProxy: 'http://env-proxy:8080', noProxy: '.corp' });
    expect(envValueOf('https-proxy', { HTTPS_PROXY: 'http://a:1' })).toEqual({ name: 'HTTPS_PROXY', raw: 'http://a:1' });
  });

  it('one reading of each variable: an empty or blank one is unset for the display and for undici alike', () => {
    // undici on its own reads `no_proxy ?? NO_PROXY`: the empty lower-case one would win while NO_PROXY is shown.
    const applied = applySettings(env({ no_proxy: '', NO_PROXY: '127.0.0.1', https_proxy: ' ', HTTPS_PROXY: ' http://proxy.corp:3128 ' }));
    expect(applied.rows.find((r) => r.key === 'no-proxy')).toMatchObject({ origin: 'env', source: 'NO_PROXY', value: '127.0.0.1' });
    expect(applied.rows.find((r) => r.key === 'https-proxy')).toMatchObject({ origin: 'env', source: 'HTTPS_PROXY', value: 'http://proxy.corp:3128' });
    expect(applied.proxy).toEqual({ httpsProxy: 'http://proxy.corp:3128', noProxy: '127.0.0.1' });
  });

  it.each([' 1', '1 ', '\t1\r\n'])('AGENTSTACK_DISABLE_AUTO_LOGIN=%j is shown and applied as auto-login false', (value) => {
    const applied = applySettings(env({ AGENTSTACK_DISABLE_AUTO_LOGIN: value }));
    expect(applied.rows.find((r) => r.key === 'auto-login')).toMatchObject({ origin: 'env', value: 'false' });
    expect(autoLoginDisabled(applied.env)).toBe(true);
    expect(autoLoginDisabled(env({ AGENTSTACK_DISABLE_AUTO_LOGIN: '0' }))).toBe(false);
  });

  it('auto-login: AGENTSTACK_DISABLE_AUTO_LOGIN=1 means false, any other value true, and either wins over the file', () => {
    write({ 'auto-login': false });
    const row = (e: Record<string, string>) => applySettings(env(e)).rows.find((r) => r.key === 'auto-login')!;
    expect(row({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).toMatchObject({ origin: 'env', value: 'false' });
    const on = applySettings(env({ AGENTSTACK_DISABLE_AUTO_LOGIN: '0' }));
    expect(on.rows.find((r) => r.key === 'auto-login')).toMatchObject({ origin: 'env', value: 'true' });
    expect(on.env.AGENTSTACK_DISABLE_AUTO_LOGIN).toBe('0');
    expect(settingSpec('auto-login').toEnv('true')).toEqual({});
  });

  it('a bad environment value is shown with its problem, not replaced by the file', () => {
    write({ 'base-url': 'https://staging.example.com' });
    const table = settingsTable(env({ AGENTSTACK_BASE_URL: 'ftp://nope' }));
    expect(table.rows[0]).toMatchObject({ key: 'base-url', origin: 'env', value: 'ftp://nope', problem: expect.stringMatching(/must be https/) });
    expect(table.problems.join('\n')).toMatch(/AGENTSTACK_BASE_URL must be https/);
  });

  it('a broken settings file: defaults apply, the problem is reported, nothing throws', () => {
    write('{oops');
    const applied = applySettings(env());
    expect(applied.rows.every((r) => r.origin === 'default')).toBe(true);
    expect(applied.problems[0]).toMatch(/not valid JSON; it was ignored/);
    expect(applied.env).toEqual(env());
  });

  it('project is the pin file: env, then the file, then none; a bad file is ignored with its fix', () => {
    const pin = join(dir, 'agentstack-project');
    expect(projectRow(env(), pin)).toMatchObject({ origin: 'default', value: null });
    writeFileSync(pin, '42\n');
    expect(projectRow(env(), pin)).toMatchObject({ origin: 'settings', value: '42', source: pin });
    expect(projectRow(env({ AGENTSTACK_PROJECT_ID: '7' }), pin)).toMatchObject({ origin: 'env', value: '7', source: 'AGENTSTACK_PROJECT_ID' });
    writeFileSync(pin, 'abc\n');
    expect(projectRow(env(), pin)).toMatchObject({ origin: 'default', value: null, problem: expect.stringContaining('config unset project') });
    expect(projectRow(env({ AGENTSTACK_PROJECT_ID: '1' }), pin)).toMatchObject({ origin: 'env', problem: expect.stringMatching(/integer greater than 1/) });
  });

  it('an unreadable file (mode 000) is reported, not thrown', () => {
    if (process.getuid?.() === 0) return; // root reads it anyway
    write({ 'base-url': 'https://staging.example.com' });
    chmodSync(path, 0o000);
    expect(readSettingsFile(path)).toMatchObject({ broken: true });
  });
});

describe('the pre-MCP hook knows the server by the base-url setting', () => {
  it('an execute call to the settings server (by url only) is checked; without the setting it is not AgentStack', async () => {
    const { runPreMcp } = await import('../../lib/commands/preMcp/run.js');
    // A snapshot of that server without the action called: a call the hook checks is denied, an unchecked one is {}.
    writeFileSync(join(dir, 'agentstack-capabilities.json'), JSON.stringify({
      fetched_at: new Date().toISOString(), audience: 'tenant', server_url: 'https://staging.example.com/mcp', total_actions: 1,
      actions: [{ action: 'projects.list', required_cap: 'projects:read' }],
    }));
    const call = { hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.lsit' }] }), url: 'https://staging.example.com/mcp' };
    expect(runPreMcp(call, { env: env() })).toEqual({});
    write({ 'base-url': 'https://staging.example.com' });
    expect(runPreMcp(call, { env: env() })).toMatchObject({ permission: 'deny', user_message: expect.stringContaining('unknown action "projects.lsit"') });
    expect(runPreMcp(call, { env: env({ AGENTSTACK_BASE_URL: 'https://env.example.com' }) })).toEqual({});
    write('{broken');
    const logged: string[] = [];
    // Unreadable rules may narrow anything: our tool at a url the plugin cannot place is asked about, naming the url.
    expect(runPreMcp(call, { env: env(), log: (m) => logged.push(m) })).toMatchObject({ permission: 'ask', user_message: expect.stringContaining('https://staging.example.com/mcp') });
    expect(logged.join('\n')).toMatch(/not valid JSON; it was ignored/);
  });
});

describe('diagnose: the settings.file gate', () => {
  it('PASS none or clean 0600; WARN broken, a refused value, or readable by others (fixed by --fix)', async () => {
    const { settingsFileGate } = await import('../../lib/commands/diagnose/gatesState.js');
    const gate = (mode: number | null = 0o600) => settingsFileGate({ file: readSettingsFile(path), mode }, 'linux');
    expect(gate(null)).toMatchObject({ status: 'PASS', summary: expect.stringContaining('no settings file') });
    write({ 'base-url': 'https://staging.example.com' });
    expect(gate()).toMatchObject({ status: 'PASS', summary: expect.stringContaining('base-url, mode 0600') });
    expect(gate(0o644)).toMatchObject({ status: 'WARN', fix: expect.stringContaining('--fix') });
    write({ 'base-url': 'ftp://x' });
    expect(gate()).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/base-url .* must be https.*ignored/) });
    write('{');
    expect(gate()).toMatchObject({ status: 'WARN', summary: expect.stringContaining('not valid JSON') });
  });
});

describe('a proxy password never shows', () => {
  // URL parsers take the user information up to the LAST "@" of the authority; a password may hold "@", spaces, "/".
  const cases = [
    ['http://bob:P@ssw0rd@proxy.corp:8080', 'http://bob:***@proxy.corp:8080', 'ssw0rd'],
    ['http://bob:P ss w0rd@proxy.corp:8080', 'http://bob:***@proxy.corp:8080', 'ss w0rd'],
    ['http://bob:pa/ss#w?rd@proxy.corp:8080', 'http://bob:***@proxy.corp:8080', 'ss#w?rd'],
    ['bob:s3cr3t@proxy.corp:8080', 'bob:***@proxy.corp:8080', 's3cr3t'],
    ['HTTP://t0k3n@proxy.corp', 'HTTP://***@proxy.corp', 't0k3n'],
  ] as const;
  it.each(cases)('%j shows as %j', (value, shown, secret) => {
    expect(maskUrlCredentials(value)).toBe(shown);
    expect(maskUrlCredentials(value)).not.toContain(secret);
  });

  it.each(cases)('%j: neither config list nor an error message shows the password', (value, _shown, secret) => {
    for (const name of ['HTTPS_PROXY', 'https_proxy']) {
      const { rows, problems } = settingsTable(env({ [name]: value }));
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(problems.join('\n')).not.toContain(secret);
    }
    let message = '';
    try { parseProxyUrl(value, 'HTTPS_PROXY'); } catch (error) { message = (error as Error).message; }
    expect(message).not.toContain(secret);
  });

  it('a URL without credentials is shown as it is', () => {
    expect(maskUrlCredentials('http://proxy.corp:8080')).toBe('http://proxy.corp:8080');
    expect(maskUrlCredentials('not a url')).toBe('not a url');
  });
});
