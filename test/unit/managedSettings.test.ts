/** Managed settings by injection: the platform paths, each precedence rule, each trust case, a broken file. */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySettings, settingsTable } from '../../lib/agentstack/settings/effective.js';
import { managedRefusal, managedSettingsPath, noManagedSettings, readManagedSettings, strictReading } from '../../lib/agentstack/settings/managed.js';
import { resolveBaseUrl } from '../../lib/agentstack/server/baseUrl.js';
import { managedSettingsGate } from '../../lib/commands/diagnose/gatesState.js';
import { policyInEffect } from '../../lib/agentstack/policy/effective.js';
import { decidePolicy } from '../../lib/commands/preMcp/policy.js';
import { credentialStoreFacts } from '../../lib/agentstack/credentials/storeFacts.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
let cursor: string;
let managedPath: string;
beforeEach(() => {
  tmp = tempDir('agentstack-managed-');
  cursor = join(tmp.path, 'cursor');
  mkdirSync(cursor);
  managedPath = join(tmp.path, 'etc', 'managed-settings.json');
  mkdirSync(join(tmp.path, 'etc'));
});
afterEach(() => tmp.cleanup());

const trusted = { trustProblem: () => null };
const untrusted = { trustProblem: () => 'the file can be written by every user (mode 0666)' };
const env = (more: Record<string, string> = {}) => ({ AGENTSTACK_CURSOR_DIR: cursor, HOME: tmp.path, ...more });
function setup(managed: Record<string, unknown> | string, mine: Record<string, unknown> = {}, trust: object = trusted) {
  writeFileSync(managedPath, typeof managed === 'string' ? managed : JSON.stringify(managed));
  writeFileSync(join(cursor, 'agentstack-settings.json'), JSON.stringify(mine));
  return { path: managedPath, ...trust };
}
const policyOf = (e: Record<string, string>, managed: object) => {
  const applied = applySettings(e, undefined, { managed });
  return policyInEffect(applied.rows, applied.file, applied.managed);
};
const step = (action: string, cap: string | null = 'projects:write') => [{ action, known: true, cap }];

describe('the managed file\'s place', () => {
  it('is fixed per platform; no environment variable moves it (Windows: the registry\'s ProgramData)', () => {
    expect(managedSettingsPath('linux')).toBe('/etc/agentstack/managed-settings.json');
    expect(managedSettingsPath('darwin')).toBe('/Library/Application Support/AgentStack/managed-settings.json');
    expect(managedSettingsPath('win32', 'D:\\ProgramData')).toBe('D:\\ProgramData\\AgentStack\\managed-settings.json');
    expect(managedSettingsPath('win32')).toBe('C:\\ProgramData\\AgentStack\\managed-settings.json');
  });
  it('absent: nothing changes', () => {
    expect(readManagedSettings({ path: managedPath, ...trusted })).toMatchObject({ exists: false, keys: [], trusted: null });
  });
});

describe('precedence', () => {
  it('policy: the stricter of the organization\'s and the person\'s', () => {
    const strictOrg = setup({ policy: 'confirm-writes' }, { policy: 'default' });
    const p = policyOf(env({ AGENTSTACK_POLICY: 'default' }), strictOrg);
    expect(p).toMatchObject({ kind: 'ok', policy: { preset: 'confirm-writes', from: { policy: { origin: 'managed', source: managedPath } } } });
    const strictPerson = setup({ policy: 'confirm-writes' }, { policy: 'readonly' });
    expect(policyOf(env(), strictPerson)).toMatchObject({ kind: 'ok', policy: { preset: 'readonly', from: { policy: { origin: 'settings' } } } });
  });

  it('ask-actions and deny-actions: the union; the person adds, never removes', () => {
    const m = setup({ 'deny-actions': 'projects.create', 'ask-actions': 'billing.*' }, { 'ask-actions': 'data.write' });
    const p = policyOf(env({ AGENTSTACK_DENY_ACTIONS: 'system.ping' }), m);
    expect(p.kind === 'ok' && p.policy.deny.sort()).toEqual(['projects.create', 'system.ping']);
    expect(p.kind === 'ok' && p.policy.ask.sort()).toEqual(['billing.*', 'data.write']);
    const denied = decidePolicy(p, step('projects.create'));
    expect(denied.permission).toBe('deny');
    expect(denied.user_message).toContain(`set by your organization in ${managedPath}`);
    expect(denied.user_message).toContain('ask your administrator');
    // The person's own rule still names where the person set it.
    expect(decidePolicy(p, step('system.ping')).user_message).toContain('AGENTSTACK_DENY_ACTIONS');
  });

  it('every other key: the managed value wins over the environment and the person\'s file', () => {
    const m = setup({ 'base-url': 'https://org.example.test', 'auto-login': false, 'oauth-client-id': 'org-client' }, { 'base-url': 'https://mine.example.test' });
    const applied = applySettings(env({ AGENTSTACK_BASE_URL: 'https://env.example.test', AGENTSTACK_DISABLE_AUTO_LOGIN: '0' }), undefined, { managed: m });
    expect(applied.env.AGENTSTACK_BASE_URL).toBe('https://org.example.test');
    expect(applied.env.AGENTSTACK_DISABLE_AUTO_LOGIN).toBe('1');
    expect(applied.env.AGENTSTACK_OAUTH_CLIENT_ID).toBe('org-client');
    expect(applied.rows.find((r) => r.key === 'base-url')).toMatchObject({ value: 'https://org.example.test', origin: 'managed', source: managedPath });
    const table = settingsTable(env(), { managed: m });
    expect(table.rows.find((r) => r.key === 'auto-login')).toMatchObject({ origin: 'managed' });
  });
});

describe('the organization\'s capability rules and the capability snapshot (a file the person can write)', () => {
  const unknownStep = (action: string, unknown: string) => [{ action, known: false, cap: null, unknown }];
  it('the snapshot cannot say (none, unreadable, not listing the action): deny, naming why and how to repair', () => {
    const m = setup({ policy: 'readonly', 'deny-actions': '*:admin' });
    const p = policyOf(env(), m);
    for (const why of ['there is no capability snapshot yet', 'the capability snapshot cannot be read', 'the capability snapshot does not list it']) {
      const answer = decidePolicy(p, unknownStep('projects.list', why));
      expect(answer.permission).toBe('deny');
      expect(answer.user_message).toContain(why);
      expect(answer.user_message).toContain('start a new Cursor session');
    }
    const byCap = policyOf(env(), setup({ 'deny-actions': '*:admin' }));
    expect(decidePolicy(byCap, unknownStep('projects.purge', 'the capability snapshot cannot be read')).permission).toBe('deny');
    // The person's own rules keep asking: only the organization's take the strictest reading.
    const mine = policyOf(env({ AGENTSTACK_POLICY: 'readonly', AGENTSTACK_DENY_ACTIONS: '*:admin' }), setup({ 'ask-actions': 'x.y' }));
    expect(decidePolicy(mine, unknownStep('projects.list', 'there is no capability snapshot yet')).permission).toBe('ask');
  });

  it('a snapshot edited to give a write action a read capability does not loosen the organization\'s readonly', () => {
    const p = policyOf(env(), setup({ policy: 'readonly' }));
    const answer = decidePolicy(p, step('projects.create', 'projects:read'));
    expect(answer.permission).toBe('deny');
    expect(answer.user_message).toContain('its name says it changes something');
    expect(decidePolicy(p, step('files.delete', null)).permission).toBe('deny');
    expect(decidePolicy(p, step('projects.list', 'projects:read'))).toEqual({});
    const confirm = policyOf(env(), setup({ policy: 'confirm-writes' }));
    expect(decidePolicy(confirm, step('projects.create', 'projects:read')).permission).toBe('ask');
  });
});

describe('a managed value that is not valid keeps the organization\'s intent', () => {
  it('"auto-login":"false", "journal":false, an http base-url: the person\'s variables do not apply; diagnose says how each is read', () => {
    const m = setup({ 'auto-login': 'false', journal: false, 'base-url': 'http://org.example.test', 'scope-preset': 'everything' });
    const applied = applySettings(env({ AGENTSTACK_DISABLE_AUTO_LOGIN: '0', AGENTSTACK_JOURNAL: 'on', AGENTSTACK_BASE_URL: 'https://mine.example.test', AGENTSTACK_SCOPE_PRESET: 'full' }), undefined, { managed: m });
    expect(applied.env.AGENTSTACK_DISABLE_AUTO_LOGIN).toBe('1');
    expect(applied.env.AGENTSTACK_JOURNAL).toBe('off');
    expect(applied.env.AGENTSTACK_BASE_URL).toBe('http://org.example.test'); // every sign-in stops with its error
    expect(() => resolveBaseUrl(applied.env)).toThrow(/must be https/);
    expect(applied.env.AGENTSTACK_SCOPE_PRESET).toBe('readonly');
    const row = applied.rows.find((r) => r.key === 'auto-login');
    expect(row).toMatchObject({ origin: 'managed', value: 'false', problem: expect.stringContaining('is not valid; read as false') });
    const check = managedSettingsGate(readManagedSettings(m));
    expect(check.status).toBe('WARN');
    expect(check.summary).toContain('journal is not valid (read as off)');
    expect(check.summary).toContain('base-url is not valid (kept as it is');
  });

  it('a value with no evident meaning: the strictest one', () => {
    expect(strictReading('auto-login', 'sometimes')?.value).toBe('false');
    expect(strictReading('journal', 3)?.value).toBe('on');
    expect(strictReading('debug', true)?.value).toBe('off');
    expect(strictReading('no-proxy', 7)?.value).toBe('');
    expect(strictReading('oauth-client-id', 'has space')?.value).toBe('has space');
    expect(strictReading('policy', 'x')).toBeNull();
  });

  it('a managed credential-store that is not valid ("keyring", true) is keychain, required: the person\'s file does not win', () => {
    expect(strictReading('credential-store', 'keyring')?.value).toBe('keychain');
    expect(strictReading('credential-store', true)?.value).toBe('keychain');
    expect(strictReading('credential-store', false)?.value).toBe('keychain');
    for (const raw of ['keyring', true]) {
      const m = setup({ 'credential-store': raw }, { 'credential-store': 'file' });
      const applied = applySettings(env({ AGENTSTACK_CREDENTIAL_STORE: 'file' }), undefined, { managed: m });
      const row = applied.rows.find((r) => r.key === 'credential-store');
      expect(row).toMatchObject({ origin: 'managed', value: 'keychain', problem: expect.stringContaining('read as keychain') });
      expect(applied.env.AGENTSTACK_CREDENTIAL_STORE).toBe('keychain');
      expect(credentialStoreFacts(row, null)).toMatchObject({ setting: 'keychain', set_by: 'managed', required: true });
    }
  });

  it('a dangling symbolic link at the managed path cannot be used (not "no file"): every call asks', () => {
    rmSync(managedPath, { force: true });
    symlinkSync(join(tmp.path, 'nowhere.json'), managedPath);
    const read = readManagedSettings({ path: managedPath, ...trusted });
    expect(read).toMatchObject({ exists: true, broken: true, keys: [], values: {}, strict: {}, trusted: null, distrust: null });
    expect(read.problems[0]).toContain('symbolic link to a file that does not exist');
    expect(managedSettingsGate(read)).toMatchObject({ status: 'FAIL', summary: expect.stringContaining('cannot be used') });
    expect(decidePolicy(policyOf(env(), { path: managedPath, ...trusted }), step('projects.list', 'projects:read')).permission).toBe('ask');
  });
});

describe('trust', () => {
  it('a file others can write keeps its rules but loses its other keys', () => {
    const m = setup({ 'base-url': 'https://evil.example.test', 'deny-actions': 'projects.create' }, {}, untrusted);
    const read = readManagedSettings(m);
    expect(read).toMatchObject({ trusted: false, keys: ['deny-actions'] });
    const applied = applySettings(env({ AGENTSTACK_BASE_URL: 'https://env.example.test' }), undefined, { managed: m });
    expect(applied.env.AGENTSTACK_BASE_URL).toBe('https://env.example.test');
    expect(applied.problems.join(' ')).toMatch(/can be changed by others .* only its rules apply/);
    expect(decidePolicy(policyOf(env(), m), step('projects.create')).permission).toBe('deny');
  });

  it('the person\'s part cannot be read: the organization\'s rules still apply in full, the rest asks', () => {
    const org = { 'deny-actions': 'projects.create', policy: 'readonly' };
    const cases: Array<[Record<string, string>, Record<string, unknown> | string]> = [
      [{ AGENTSTACK_POLICY: 'nonsense' }, {}],
      [{ AGENTSTACK_DENY_ACTIONS: 'a b' }, {}],
      [{}, '{'],
      [{}, { 'ask-actions': 42 }],
    ];
    for (const [vars, mine] of cases) {
      const m = setup(org);
      writeFileSync(join(cursor, 'agentstack-settings.json'), typeof mine === 'string' ? mine : JSON.stringify(mine));
      const p = policyOf(env(vars), m);
      expect(p.kind).toBe('unreadable');
      const denied = decidePolicy(p, step('projects.create'));
      expect(denied.permission).toBe('deny');
      expect(denied.user_message).toContain(`set by your organization in ${managedPath}`);
      expect(decidePolicy(p, step('data.write')).permission).toBe('deny'); // the organization's readonly
      expect(decidePolicy(p, step('projects.list', 'projects:read')).permission).toBe('ask'); // only ask is added
    }
  });

  it('the managed file cannot be read: the person\'s own deny still denies, the rest asks', () => {
    const m = setup('{ broken', { 'deny-actions': 'projects.delete' });
    const p = policyOf(env(), m);
    expect(p.kind).toBe('unreadable');
    expect(decidePolicy(p, step('projects.delete')).permission).toBe('deny');
    expect(decidePolicy(p, step('projects.list', 'projects:read')).permission).toBe('ask');
  });

  it('a broken, refused or oversized file: every AgentStack call asks, naming the file', () => {
    for (const content of ['{not json', JSON.stringify({ 'deny-actions': 'a,,b' }), `{"x":"${'a'.repeat(1_100_000)}"}`]) {
      const m = setup(content);
      const p = policyOf(env(), m);
      expect(p.kind).toBe('unreadable');
      const answer = decidePolicy(p, step('projects.list', 'projects:read'));
      expect(answer.permission).toBe('ask');
      expect(answer.user_message).toContain(managedPath);
    }
  });
});

describe('what a managed read says beyond its values', () => {
  it('a value read the strict way is no longer counted as refused', () => {
    const read = readManagedSettings(setup({ journal: 'maybe', 'scope-preset': 3, policy: 'nonsense' }));
    expect(read.values).toMatchObject({ journal: 'on', 'scope-preset': 'readonly' });
    expect(Object.keys(read.strict).sort()).toEqual(['journal', 'scope-preset']);
    expect(read.rejected).toEqual(['policy']);
  });

  it('a broken file\'s trust is not judged (it is unusable whoever wrote it)', () => {
    const read = readManagedSettings(setup('{ broken', {}, untrusted));
    expect(read).toMatchObject({ broken: true, distrust: null });
  });

  it('owner and mode that cannot be read: not trusted, naming the system\'s code (or "error")', () => {
    const withCode = Object.assign(new Error('no'), { code: 'EACCES' });
    const a = readManagedSettings(setup({ policy: 'readonly', debug: 'api' }, {}, { trustProblem: () => { throw withCode; } }));
    expect(a).toMatchObject({ trusted: false, distrust: 'its owner and mode cannot be read (EACCES)', keys: ['policy'] });
    const b = readManagedSettings(setup({ policy: 'readonly' }, {}, { trustProblem: () => { throw new Error('no'); } }));
    expect(b.distrust).toBe('its owner and mode cannot be read (error)');
  });

  it('no managed file, and the refusal config set gives for a key the organization set', () => {
    expect(noManagedSettings('/etc/x.json')).toEqual({
      path: '/etc/x.json', exists: false, values: {}, problems: [], rejected: [], broken: false, trusted: null, distrust: null, keys: [], strict: {},
    });
    expect(managedRefusal('journal', '/etc/x.json')).toBe('journal is set by your organization in /etc/x.json; ask your administrator to change it');
  });
});
