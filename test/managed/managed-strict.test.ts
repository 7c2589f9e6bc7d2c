/**
 * The organization's managed rules at their real place (/etc/agentstack, as root) against a person's broken or edited
 * files: a broken personal part only adds ask, the capability snapshot cannot loosen a capability rule, a value
 * that is not valid keeps the organization's intent, a dangling link cannot be used. Runs alone, like
 * managed-settings.test.ts (vitest.managed.config.ts), and removes what it wrote.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { managedSettingsPath } from '../../lib/agentstack/settings/managed.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, sessionStart, signedInWithSnapshot } from '../helpers/sessionStart.js';
import { notRunWhen } from '../helpers/notRun.js';

const PATH = managedSettingsPath('linux');
const DIR = '/etc/agentstack';
const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
const tmp = tempDir('agentstack-managed-strict-');
let core: RunningCore;
let dir: string;
let madeDir = false;

const settingsFile = () => join(dir, 'agentstack-settings.json');
const snapshotFile = () => join(dir, 'agentstack-capabilities.json');
const call = (action: string) => JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${core.baseUrl}/mcp`, tool_input: JSON.stringify({ steps: [{ id: '1', action }] }) });
const hook = async (action: string, extra: Record<string, string> = {}) => (await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl, extra), call(action))).json;
const diagnose = () => JSON.parse(spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: hookEnv(dir, core.baseUrl), encoding: 'utf8' }).stdout) as { checks: Array<{ id: string; status: string; summary: string }> };
function writeManaged(content: unknown): void {
  writeFileSync(PATH, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(PATH, 0o644);
}

describe('managed rules against the person\'s own files (root)', notRunWhen(!asRoot && 'it needs root (real or in a user namespace)', { timeout: 120_000 }), () => {
  beforeAll(async () => {
    expect(existsSync(PATH)).toBe(false); // never overwrite a real organization's file
    if (!existsSync(DIR)) {
      mkdirSync(DIR, { mode: 0o755 });
      madeDir = true;
    }
    core = await startCore({ port: 0, interval: 1 });
    dir = await signedInWithSnapshot(tmp.path, core);
  });
  afterEach(() => {
    rmSync(PATH, { force: true });
    rmSync(settingsFile(), { force: true });
  });
  afterAll(async () => {
    rmSync(PATH, { force: true });
    if (madeDir) rmSync(DIR, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    await core?.close();
    tmp.cleanup();
  });

  it('the person\'s broken part (a variable, the file) cannot turn the organization\'s deny into ask', async () => {
    writeManaged({ 'deny-actions': 'projects.create', policy: 'readonly' });
    expect((await hook('projects.create')).permission).toBe('deny');
    for (const vars of [{ AGENTSTACK_POLICY: 'nonsense' }, { AGENTSTACK_DENY_ACTIONS: 'a b' }] as Array<Record<string, string>>) {
      const denied = await hook('projects.create', vars);
      expect(denied.permission).toBe('deny');
      expect(String(denied.user_message)).toContain(`set by your organization in ${PATH}`);
      expect((await hook('projects.list', vars)).permission).toBe('ask'); // only ask is added
    }
    for (const text of ['{', JSON.stringify({ 'ask-actions': 42 })]) {
      writeFileSync(settingsFile(), text);
      expect((await hook('projects.create')).permission).toBe('deny');
      expect((await hook('data.write')).permission).toBe('deny'); // the organization's readonly
    }
  });

  it('the capability snapshot cannot say (a folder): deny naming why and how to repair; session start repairs it', async () => {
    writeManaged({ policy: 'readonly', 'deny-actions': '*:admin' });
    const saved = readFileSync(snapshotFile(), 'utf8');
    rmSync(snapshotFile());
    mkdirSync(snapshotFile());
    try {
      const denied = await hook('projects.list');
      expect(denied.permission).toBe('deny');
      expect(String(denied.user_message)).toContain('the capability snapshot cannot be read');
      expect(String(denied.user_message)).toContain('start a new Cursor session');
      expect((await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).code).toBe(0);
      expect(readdirSync(dir).some((n) => n.startsWith('agentstack-capabilities.json.moved-'))).toBe(true);
      expect(await hook('projects.list')).toEqual({});
    } finally {
      if (!statSync(snapshotFile(), { throwIfNoEntry: false })?.isFile()) {
        rmSync(snapshotFile(), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
        writeFileSync(snapshotFile(), saved);
      }
    }
  });

  it('a snapshot edited to give projects.create a read capability does not loosen the organization\'s readonly', async () => {
    writeManaged({ policy: 'readonly' });
    const saved = readFileSync(snapshotFile(), 'utf8');
    const snapshot = JSON.parse(saved) as { actions: Array<{ action: string; required_cap: string | null }> };
    for (const a of snapshot.actions) if (a.action === 'projects.create') a.required_cap = 'projects:read';
    writeFileSync(snapshotFile(), `${JSON.stringify(snapshot, null, 2)}\n`);
    try {
      const denied = await hook('projects.create');
      expect(denied.permission).toBe('deny');
      expect(String(denied.user_message)).toContain('its name says it changes something');
    } finally {
      writeFileSync(snapshotFile(), saved);
    }
  });

  it('a snapshot relabelling projects.create (projects:read, or no capability) does not loosen the organization\'s *:write', async () => {
    writeManaged({ 'deny-actions': '*:write' });
    const saved = readFileSync(snapshotFile(), 'utf8');
    try {
      for (const cap of ['projects:read', null]) {
        const snapshot = JSON.parse(saved) as { actions: Array<{ action: string; required_cap: string | null }> };
        for (const a of snapshot.actions) if (a.action === 'projects.create') a.required_cap = cap;
        writeFileSync(snapshotFile(), `${JSON.stringify(snapshot, null, 2)}\n`);
        expect((await hook('projects.create')).permission).toBe('deny');
        expect(await hook('projects.list')).toEqual({});
      }
    } finally {
      writeFileSync(snapshotFile(), saved);
    }
  });

  it('managed values that are not valid keep the organization\'s intent, and diagnose says how each is read', () => {
    writeManaged({ 'auto-login': 'false', journal: false, 'base-url': 'http://org.example.test' });
    // A sign-in does not go to the person's AGENTSTACK_BASE_URL: it stops on the organization's value.
    const signIn = spawnSync(process.execPath, [join(REPO_ROOT, 'hooks/scripts/device-code.mjs')], { env: hookEnv(dir, core.baseUrl), encoding: 'utf8', timeout: 30_000 });
    expect(signIn.status).not.toBe(0);
    expect(signIn.stderr).toContain('http://org.example.test');
    const row = diagnose().checks.find((c) => c.id === 'settings.managed');
    expect(row?.status).toBe('WARN');
    expect(row?.summary).toContain('auto-login is not valid (read as false)');
    expect(row?.summary).toContain('journal is not valid (read as off)');
    expect(row?.summary).toContain('base-url is not valid (kept as it is');
  });

  it('a managed credential-store that is not valid ("keyring", true) is keychain, required: the person\'s file does not win', () => {
    writeFileSync(settingsFile(), JSON.stringify({ 'credential-store': 'file' }));
    for (const value of ['keyring', true]) {
      writeManaged({ 'credential-store': value });
      const status = spawnSync(process.execPath, [join(REPO_ROOT, 'hooks/scripts/device-code.mjs'), '--status', '--json'], { env: hookEnv(dir, core.baseUrl, { AGENTSTACK_CREDENTIAL_STORE: 'file' }), encoding: 'utf8', timeout: 30_000 });
      expect(JSON.parse(status.stdout).credential_store).toMatchObject({ setting: 'keychain', set_by: 'managed', source: PATH, required: true });
      const row = diagnose().checks.find((c) => c.id === 'settings.managed');
      expect(row?.status).toBe('WARN');
      expect(row?.summary).toContain('credential-store is not valid (read as keychain');
      // A sign-in under it needs the keychain, which this run has none of: it stops before any code, naming the file.
      const signIn = spawnSync(process.execPath, [join(REPO_ROOT, 'hooks/scripts/device-code.mjs'), '--json', '--no-browser'], { env: hookEnv(dir, core.baseUrl, { AGENTSTACK_CREDENTIAL_STORE: 'file', DBUS_SESSION_BUS_ADDRESS: '' }), encoding: 'utf8', timeout: 30_000 });
      expect(signIn.status).not.toBe(0);
      expect(signIn.stdout).not.toContain('"device_code"');
      expect(signIn.stderr).toContain(`credential-store = keychain in ${PATH}`);
    }
  });

  it('a dangling symbolic link at the managed path cannot be used (not "no file"): calls ask, diagnose FAILs', async () => {
    symlinkSync('/nonexistent/agentstack-managed.json', PATH);
    expect((await hook('projects.list')).permission).toBe('ask');
    const row = diagnose().checks.find((c) => c.id === 'settings.managed');
    expect(row).toMatchObject({ status: 'FAIL', summary: expect.stringContaining('cannot be used') });
  });
});
