/**
 * The organization's managed settings at their real place (/etc/agentstack/managed-settings.json), as a person meets
 * them: the built hooks and scripts, a reference core. Runs only as test/managed/isolated.mjs runs it: as root (real,
 * or mapped in a user namespace) in a private mount namespace whose /etc is a copy, so the real /etc is never written;
 * anywhere else the file is skipped and says why. Runs alone (vitest.managed.config.ts) and removes what it wrote.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { managedSettingsPath } from '../../lib/agentstack/settings/managed.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, signedInWithSnapshot } from '../helpers/sessionStart.js';
import { notRunWhen } from '../helpers/notRun.js';

const PATH = managedSettingsPath('linux');
const DIR = '/etc/agentstack';
const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
const mountNs = (pid: string) => { try { return readlinkSync(`/proc/${pid}/ns/mnt`); } catch { return null; } };
/** This process's /etc is isolated.mjs's copy: it said so, and this mount namespace is not the one it ran in. */
const isolated = process.env.AGENTSTACK_MANAGED_ETC === 'copy' && !!process.env.AGENTSTACK_MANAGED_OUTER_MNT && mountNs('self') !== process.env.AGENTSTACK_MANAGED_OUTER_MNT;
const OUTER_ROOT = `/proc/${process.env.AGENTSTACK_MANAGED_OUTER_PID}/root`;
if (!asRoot || !isolated) {
  console.warn(`test/managed skipped: ${!asRoot ? 'it needs root (real or in a user namespace)' : 'its /etc is not a private copy'}; run it with node test/managed/isolated.mjs`);
}
const tmp = tempDir('agentstack-managed-root-');
let core: RunningCore;
let dir: string;
let madeDir = false;

const script = (p: string) => join(REPO_ROOT, p);
const run = (path: string, args: string[], extra: Record<string, string> = {}) => spawnSync(process.execPath, [script(path), ...args], { env: hookEnv(dir, core.baseUrl, extra), encoding: 'utf8' });
const call = (action: string) => JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${core.baseUrl}/mcp`, tool_input: JSON.stringify({ steps: [{ id: '1', action }] }) });
const hook = async (action: string, extra: Record<string, string> = {}) => (await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl, extra), call(action))).json;
function writeManaged(content: unknown, mode = 0o644): void {
  writeFileSync(PATH, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(PATH, mode);
}

describe('managed settings at /etc/agentstack (root, in a private mount namespace)', notRunWhen(!asRoot ? 'it needs root (real or in a user namespace)' : !isolated && 'its /etc is not a private copy (run it with node test/managed/isolated.mjs)', { timeout: 120_000 }), () => {
  beforeAll(async () => {
    expect(existsSync(PATH)).toBe(false); // never overwrite a real organization's file
    if (!existsSync(DIR)) {
      mkdirSync(DIR, { mode: 0o755 });
      madeDir = true;
    }
    core = await startCore({ port: 0, interval: 1 });
    dir = await signedInWithSnapshot(tmp.path, core);
  });
  afterAll(async () => {
    rmSync(PATH, { force: true });
    if (madeDir) rmSync(DIR, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    await core?.close();
    tmp.cleanup();
  });

  it('deny projects.create and confirm-writes: denied whatever the person sets, naming the file; the person can add rules', async () => {
    expect(await hook('projects.create')).toEqual({}); // before: no rule anywhere
    writeManaged({ 'deny-actions': 'projects.create', policy: 'confirm-writes' });
    writeFileSync(join(dir, 'agentstack-settings.json'), JSON.stringify({ policy: 'default' }));
    const denied = await hook('projects.create', { AGENTSTACK_POLICY: 'default', AGENTSTACK_DENY_ACTIONS: 'nothing.here' });
    expect(denied.permission).toBe('deny');
    expect(String(denied.user_message)).toContain(`set by your organization in ${PATH}`);
    expect((await hook('data.write')).permission).toBe('ask'); // confirm-writes
    expect(await hook('projects.list')).toEqual({});
    // A rule of the person's own still counts.
    expect(run('scripts/config.mjs', ['set', 'ask-actions', 'projects.list']).status).toBe(0);
    expect((await hook('projects.list')).permission).toBe('ask');
    expect(run('scripts/config.mjs', ['unset', 'ask-actions']).status).toBe(0);
  });

  it('config refuses to loosen it (exit 2, naming the file); config list shows origin managed', () => {
    writeManaged({ 'deny-actions': 'projects.create', policy: 'confirm-writes' });
    const refused = run('scripts/config.mjs', ['set', 'policy', 'default']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`policy is set by your organization in ${PATH}; ask your administrator`);
    expect(run('scripts/config.mjs', ['set', 'policy', 'readonly']).status).toBe(0); // stricter is the person's to choose
    expect(run('scripts/config.mjs', ['unset', 'policy']).status).toBe(2);
    const list = JSON.parse(run('scripts/config.mjs', ['list', '--json']).stdout) as { settings: Array<{ key: string; origin: string; source: string }> };
    expect(list.settings.find((r) => r.key === 'deny-actions')).toMatchObject({ origin: 'managed', source: PATH });
    const status = run('hooks/scripts/device-code.mjs', ['--status']).stdout;
    expect(status).toContain(`Managed by your organization: policy, deny-actions (${PATH})`);
    const diagnose = JSON.parse(run('scripts/diagnose-local.mjs', ['--json']).stdout) as { checks: Array<{ id: string; status: string; summary: string }> };
    expect(diagnose.checks.find((c) => c.id === 'settings.managed')).toMatchObject({ status: 'PASS', summary: expect.stringContaining('set by your organization: policy, deny-actions') });
    writeFileSync(join(dir, 'agentstack-settings.json'), '{}');
  });

  it('a managed base-url wins over AGENTSTACK_BASE_URL, except from a file others can write', () => {
    writeManaged({ 'base-url': 'https://org.example.test' });
    const status = JSON.parse(run('hooks/scripts/device-code.mjs', ['--status', '--json']).stdout) as { server_url: string };
    expect(status.server_url).toBe('https://org.example.test/mcp');
    writeManaged({ 'base-url': 'https://org.example.test' }, 0o666);
    const loose = JSON.parse(run('hooks/scripts/device-code.mjs', ['--status', '--json']).stdout) as { server_url: string };
    expect(loose.server_url).toBe(`${core.baseUrl}/mcp`);
    const diagnose = JSON.parse(run('scripts/diagnose-local.mjs', ['--json']).stdout) as { checks: Array<{ id: string; status: string; summary: string; fix?: string }> };
    expect(diagnose.checks.find((c) => c.id === 'settings.managed')).toMatchObject({ status: 'FAIL', summary: expect.stringContaining('can be changed by others'), fix: expect.stringContaining('chmod go-w') });
  });

  it('a group-writable file, or a file in a group-writable folder, is not trusted: its base-url is ignored, naming its group', () => {
    writeManaged({ 'base-url': 'https://org.example.test' }, 0o664);
    const status = () => (JSON.parse(run('hooks/scripts/device-code.mjs', ['--status', '--json']).stdout) as { server_url: string }).server_url;
    expect(status()).toBe(`${core.baseUrl}/mcp`);
    const diagnose = JSON.parse(run('scripts/diagnose-local.mjs', ['--json']).stdout) as { checks: Array<{ id: string; summary: string }> };
    expect(diagnose.checks.find((c) => c.id === 'settings.managed')?.summary).toContain('can be changed by others');
    writeManaged({ 'base-url': 'https://org.example.test' }, 0o644);
    expect(status()).toBe('https://org.example.test/mcp');
    chmodSync(DIR, 0o775);
    try {
      expect(status()).toBe(`${core.baseUrl}/mcp`);
    } finally {
      chmodSync(DIR, 0o755);
    }
  });

  it('the real /etc is left alone: the file written here is in the copy, not where the runner sees /etc', () => {
    writeManaged({ policy: 'readonly' });
    expect(existsSync(PATH)).toBe(true);
    expect(mountNs('self')).not.toBe(process.env.AGENTSTACK_MANAGED_OUTER_MNT);
    // As real root the runner's /etc can be looked at from here; in a user namespace it cannot (isolated.mjs then
    // compares the real /etc/agentstack before and after the run, as it always does).
    if (mountNs(process.env.AGENTSTACK_MANAGED_OUTER_PID!) !== null) expect(existsSync(`${OUTER_ROOT}${PATH}`)).toBe(false);
    rmSync(PATH);
  });

  it('a broken file: every AgentStack call asks naming it, and diagnose FAILs', async () => {
    writeManaged('{ not json');
    const asked = await hook('projects.list');
    expect(asked.permission).toBe('ask');
    expect(String(asked.user_message)).toContain(PATH);
    const diagnose = JSON.parse(run('scripts/diagnose-local.mjs', ['--json']).stdout) as { checks: Array<{ id: string; status: string }> };
    expect(diagnose.checks.find((c) => c.id === 'settings.managed')?.status).toBe('FAIL');
    rmSync(PATH);
    expect(await hook('projects.list')).toEqual({});
  });
});
