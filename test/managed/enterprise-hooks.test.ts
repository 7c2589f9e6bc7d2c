/**
 * The organization's gate in Cursor's enterprise hooks file, at its real places (/etc/cursor/hooks.json and
 * /usr/local/lib/agentstack-cursor, as root): install, reinstall and remove beside another tool's entries (their bytes
 * kept), the copy's folders root-only at every level, refusal for anyone but root, the copy run the way Cursor runs
 * an enterprise hook with the plugin's folder gone, and one gate (one journal record, one answer) when both the
 * plugin's hooks and the copy see a call, whichever runs first. Runs only as test/managed/isolated.mjs runs it: in a
 * private mount namespace whose /etc and /usr/local/lib are copies.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { managedSettingsPath } from '../../lib/agentstack/settings/managed.js';
import { enterpriseHooksPath, orgGateDir, orgMarkerPath } from '../../lib/agentstack/plugin/orgGate.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, signedInWithSnapshot } from '../helpers/sessionStart.js';

const HOOKS = enterpriseHooksPath('linux');
const GATE_DIR = orgGateDir('linux');
const MANAGED = managedSettingsPath('linux');
const AFTER_SCRIPT = join(REPO_ROOT, 'hooks/scripts/after-mcp-journal.cjs');
const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
const mountNs = (pid: string) => { try { return readlinkSync(`/proc/${pid}/ns/mnt`); } catch { return null; } };
const isolated = process.env.AGENTSTACK_MANAGED_ETC === 'copy' && process.env.AGENTSTACK_MANAGED_USR_LOCAL_LIB === 'copy'
  && !!process.env.AGENTSTACK_MANAGED_OUTER_MNT && mountNs('self') !== process.env.AGENTSTACK_MANAGED_OUTER_MNT;
/** install-hooks checks every level up to / belongs to root: in a user namespace (root mapped to a user) / shows as another uid. */
const realRoot = statSync('/').uid === 0;
if (!asRoot || !isolated || !realRoot) console.warn(`test/managed/enterprise-hooks skipped: ${!realRoot ? 'install-hooks needs the real root (in a user namespace / does not belong to root)' : 'it needs root in a private mount namespace whose /etc and /usr/local/lib are copies (node test/managed/isolated.mjs)'}`);

/** Another tool's enterprise hooks, in its own formatting (tabs, CRLF, a number as written, its own key order). */
const OTHER = '{\r\n\t"hooks": {\r\n\t\t"beforeMCPExecution": [\r\n\t\t\t{ "timeout": 2.50, "command": "/opt/acme/bin/guard --mcp" }\r\n\t\t],\r\n\t\t"beforeShellExecution": [{"command":"/opt/acme/bin/shell-guard"}]\r\n\t},\r\n\t"version": 1\r\n}\r\n';

const tmp = tempDir('agentstack-enterprise-');
let core: RunningCore;
let home: string;
let dir: string;
let plugin: string;

/** A plugin folder of its own (what install-hooks copies from), so the test can remove it as a person might. */
function pluginCopy(): string {
  const root = join(tmp.path, `plugin-${Math.random().toString(36).slice(2, 8)}`);
  for (const part of ['.cursor-plugin', 'hooks', 'scripts/managed.mjs']) cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
  for (let d = root; d !== dirname(tmp.path); d = dirname(d)) chmodSync(d, 0o755);
  return root;
}
const managed = (args: string[], options: { root?: string } = {}) => spawnSync(process.execPath, [join(options.root ?? plugin, 'scripts/managed.mjs'), ...args], { encoding: 'utf8', timeout: 60_000 });
const entryCommand = (event: string): string => {
  const entries = (JSON.parse(readFileSync(HOOKS, 'utf8')) as { hooks: Record<string, Array<{ command: string; failClosed?: boolean }>> }).hooks[event]!;
  return entries.find((e) => e.command.includes(GATE_DIR))!.command;
};
/** The person's environment as Cursor hands it to a hook: their HOME, no plugin root, no Cursor dir override. */
const personEnv = () => {
  const env = hookEnv(dir, core.baseUrl);
  delete env.AGENTSTACK_CURSOR_DIR;
  return { ...env, HOME: home };
};
/** Runs an enterprise hook as Cursor does: its command through the shell, from the enterprise config folder. */
function runEnterprise(event: string, stdin: string): Promise<Record<string, unknown>> {
  const child = spawn('sh', ['-c', entryCommand(event)], { cwd: dirname(HOOKS), env: personEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => child.on('close', (code) => {
    try { expect(code).toBe(0); resolve(JSON.parse(out.trim()) as Record<string, unknown>); } catch (error) { reject(error); }
  }));
}
const runPlugin = async (script: string, stdin: string) => (await runHook(script, [], personEnv(), stdin)).json;
const before = (action: string, server = 'user-agentstack') => JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: server, url: `${core.baseUrl}/mcp`, tool_input: JSON.stringify({ steps: [{ id: '1', action }] }), conversation_id: 'c-ent' });
const after = (action: string) => JSON.stringify({ hook_event_name: 'afterMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${core.baseUrl}/mcp`, tool_input: JSON.stringify({ steps: [{ id: '1', action }] }), result_json: JSON.stringify({ content: [{ type: 'text', text: '{"ok":true}' }] }), conversation_id: 'c-ent' });
const OTHER_CALL = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'create_issue', mcp_server_name: 'github', url: 'https://api.github.example/mcp', tool_input: '{"title":"x"}' });
const journalLines = () => { try { return readFileSync(join(dir, 'agentstack-journal.jsonl'), 'utf8').split('\n').filter(Boolean).length; } catch { return 0; } };

/** Every level from `path` up to `/`: root's, and writable by no group or other user. */
function levelsRootOnly(path: string): string[] {
  const bad: string[] = [];
  for (let d = path; ; d = dirname(d)) {
    const st = lstatSync(d);
    if (st.uid !== 0 || (!st.isSymbolicLink() && (st.mode & 0o022) !== 0)) bad.push(`${d} ${st.uid} 0${(st.mode & 0o777).toString(8)}`);
    if (dirname(d) === d) return bad;
  }
}

describe.skipIf(!asRoot || !isolated || !realRoot)('the organization\'s gate in Cursor\'s enterprise hooks (root, private /etc and /usr/local/lib)', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    expect(existsSync(HOOKS)).toBe(false); // the copy of /etc holds no enterprise hooks of a real organization
    expect(existsSync(GATE_DIR)).toBe(false);
    core = await startCore({ port: 0, interval: 1 });
    home = join(tmp.path, 'home');
    mkdirSync(home, { recursive: true });
    dir = await signedInWithSnapshot(home, core, '.cursor');
    plugin = pluginCopy();
  });
  afterEach(() => {
    managed(['remove-hooks'], { root: REPO_ROOT });
    rmSync(dirname(HOOKS), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    rmSync(MANAGED, { force: true });
    rmSync(join(dir, 'agentstack-journal.jsonl'), { force: true });
  });
  afterAll(async () => {
    rmSync(dirname(MANAGED), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    await core?.close();
    tmp.cleanup();
  });

  it('install beside another tool\'s entries keeps their bytes; a reinstall changes nothing; remove leaves the file as it was', () => {
    mkdirSync(dirname(HOOKS), { mode: 0o755 });
    writeFileSync(HOOKS, OTHER, { mode: 0o640 });
    chmodSync(HOOKS, 0o640);
    const first = managed(['install-hooks']);
    expect(first.status, first.stderr).toBe(0);
    const installed = readFileSync(HOOKS, 'utf8');
    expect(installed.startsWith('{\r\n\t"hooks": {\r\n\t\t"beforeMCPExecution": [\r\n\t\t\t{ "timeout": 2.50, "command": "/opt/acme/bin/guard --mcp" },')).toBe(true);
    expect(installed).toContain('"beforeShellExecution": [{"command":"/opt/acme/bin/shell-guard"}]');
    expect(statSync(HOOKS).mode & 0o777).toBe(0o640); // the administrator's mode is kept
    const parsed = JSON.parse(installed) as { hooks: Record<string, Array<Record<string, unknown>>> };
    const pre = parsed.hooks.beforeMCPExecution!.find((e) => String(e.command).includes(GATE_DIR))!;
    expect(pre).toEqual({ command: `"${process.execPath}" "${GATE_DIR}/hooks/scripts/pre-mcp-cap-check.cjs"`, timeout: 5, failClosed: true });
    expect(parsed.hooks.afterMCPExecution).toEqual([{ command: `"${process.execPath}" "${GATE_DIR}/hooks/scripts/after-mcp-journal.cjs"`, timeout: 5 }]);
    const stamp = statSync(HOOKS).mtimeMs;
    const again = managed(['install-hooks']);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('nothing changed');
    expect(readFileSync(HOOKS, 'utf8')).toBe(installed);
    expect(statSync(HOOKS).mtimeMs).toBe(stamp);
    expect(managed(['status']).status).toBe(0);
    const removed = managed(['remove-hooks']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(HOOKS, 'utf8')).toBe(OTHER);
    expect(existsSync(GATE_DIR)).toBe(false);
    expect(managed(['status']).status).toBe(1);
  });

  it('a missing hooks file is created 0644 with only the gate, and removed again by remove-hooks; diagnose says whether it is in place', () => {
    const row = () => (JSON.parse(spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: personEnv(), encoding: 'utf8' }).stdout) as { checks: Array<{ id: string; status: string; summary: string }> }).checks.find((c) => c.id === 'settings.enterprise_hooks');
    mkdirSync(dirname(MANAGED), { recursive: true, mode: 0o755 });
    writeFileSync(MANAGED, JSON.stringify({ 'deny-actions': 'projects.delete' }));
    chmodSync(MANAGED, 0o644);
    expect(row()).toMatchObject({ status: 'WARN', summary: expect.stringContaining('stop when the plugin is turned off') });
    expect(managed(['install-hooks']).status).toBe(0);
    expect(row()).toMatchObject({ status: 'PASS', summary: expect.stringContaining('in place in /etc/cursor/hooks.json') });
    expect(statSync(HOOKS).mode & 0o777).toBe(0o644);
    const status = JSON.parse(managed(['status', '--json']).stdout) as { in_place: boolean; version: string; plugin_version: string };
    expect(status).toMatchObject({ in_place: true });
    expect(status.version).toBe(status.plugin_version);
    expect(managed(['remove-hooks']).status).toBe(0);
    expect(existsSync(HOOKS)).toBe(false);
  });

  it('the copy\'s folders and files belong to root and no group or other user can write any level; a writable folder is refused', () => {
    expect(managed(['install-hooks']).status).toBe(0);
    for (const p of ['gate.json', 'hooks/scripts/pre-mcp-cap-check.cjs', 'hooks/scripts/pre-mcp-cap-check.execute.cjs', 'hooks/scripts/after-mcp-journal.cjs']) {
      expect(levelsRootOnly(join(GATE_DIR, p))).toEqual([]);
    }
    expect(managed(['remove-hooks']).status).toBe(0);
    mkdirSync(GATE_DIR, { mode: 0o775 });
    chmodSync(GATE_DIR, 0o775);
    const refused = managed(['install-hooks']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('can be written by its group');
    expect(existsSync(HOOKS)).toBe(false);
    rmSync(GATE_DIR, { recursive: true });
  });

  it('refuses anyone but root (nobody): exit 3, nothing written', () => {
    const asNobody = (args: string[]) => {
      const argv = [process.execPath, join(plugin, 'scripts/managed.mjs'), ...args];
      const viaSetpriv = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...argv], { encoding: 'utf8' });
      if (viaSetpriv.status !== null && !/setpriv:/.test(viaSetpriv.stderr)) return viaSetpriv;
      // A root mapped in a user namespace cannot become nobody: a nested namespace maps this user to 65534 instead.
      return spawnSync('unshare', ['--user', '--map-user=65534', '--map-group=65534', ...argv], { encoding: 'utf8' });
    };
    for (const action of ['install-hooks', 'remove-hooks']) {
      const r = asNobody([action]);
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toContain('only an administrator may change /etc/cursor/hooks.json');
    }
    expect(existsSync(HOOKS)).toBe(false);
    expect(existsSync(GATE_DIR)).toBe(false);
  });

  it('refuses a node path a shell could misread, or one others could replace', () => {
    const odd = managed(['install-hooks', '--node', '/usr/bin/node"; touch /tmp/x; "']);
    expect(odd.status).toBe(1);
    expect(odd.stderr).toContain('holds a character a shell could read as something else');
    const open = join(tmp.path, 'open-bin');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    cpSync(process.execPath, join(open, 'node'));
    const replaceable = managed(['install-hooks', '--node', join(open, 'node')]);
    expect(replaceable.status).toBe(1);
    expect(replaceable.stderr).toContain('could be replaced by someone other than root');
    expect(existsSync(HOOKS)).toBe(false);
  });

  it('the copy run as Cursor runs an enterprise hook, the plugin folder removed: the managed deny denies; an allowed action and another server\'s call pass', async () => {
    mkdirSync(dirname(MANAGED), { recursive: true, mode: 0o755 });
    writeFileSync(MANAGED, JSON.stringify({ 'deny-actions': '*:write' }));
    chmodSync(MANAGED, 0o644);
    const own = pluginCopy();
    expect(managed(['install-hooks'], { root: own }).status).toBe(0);
    rmSync(own, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    const denied = await runEnterprise('beforeMCPExecution', before('projects.create'));
    expect(denied.permission).toBe('deny');
    expect(String(denied.user_message)).toContain(`set by your organization in ${MANAGED}`);
    expect(await runEnterprise('beforeMCPExecution', before('projects.list'))).toEqual({});
    expect(await runEnterprise('beforeMCPExecution', OTHER_CALL)).toEqual({});
    expect(entryCommand('beforeMCPExecution')).toContain('pre-mcp-cap-check.cjs');
    const entry = (JSON.parse(readFileSync(HOOKS, 'utf8')) as { hooks: { beforeMCPExecution: Array<{ failClosed?: boolean }> } }).hooks.beforeMCPExecution[0]!;
    expect(entry.failClosed).toBe(true); // a crash or timeout of the copy blocks the call
  });

  it('the copy does not take the person\'s compiled gate for its answer: a gate edited to pass projects.create still gets the deny', async () => {
    mkdirSync(dirname(MANAGED), { recursive: true, mode: 0o755 });
    writeFileSync(MANAGED, JSON.stringify({ 'deny-actions': 'projects.create' }));
    chmodSync(MANAGED, 0o644);
    const gateFile = join(dir, 'agentstack-gate.json');
    rmSync(gateFile, { force: true });
    expect(await runPlugin(PRE_MCP_SCRIPT, before('projects.list'))).toEqual({}); // compiles the gate
    expect(existsSync(gateFile)).toBe(true);
    const compiled = readFileSync(gateFile, 'utf8');
    try {
      writeFileSync(gateFile, `${compiled}projects.create\n`);
      expect(await runPlugin(PRE_MCP_SCRIPT, before('projects.create'))).toEqual({}); // the plugin alone takes the edited gate's word
      expect(managed(['install-hooks']).status).toBe(0);
      expect((await runEnterprise('beforeMCPExecution', before('projects.create'))).permission).toBe('deny');
    } finally {
      rmSync(gateFile, { force: true });
    }
  });

  it('entries taken out by hand with the copy left: the plugin\'s own hook checks again, status fails; install-hooks puts them back', async () => {
    mkdirSync(dirname(MANAGED), { recursive: true, mode: 0o755 });
    writeFileSync(MANAGED, JSON.stringify({ 'deny-actions': 'projects.create' }));
    chmodSync(MANAGED, 0o644);
    expect(managed(['install-hooks']).status).toBe(0);
    expect(await runPlugin(PRE_MCP_SCRIPT, before('projects.create'))).toEqual({});
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(HOOKS, '{"version": 1, "hooks": {}}\n');
    expect((await runPlugin(PRE_MCP_SCRIPT, before('projects.create'))).permission).toBe('deny');
    const status = managed(['status']);
    expect(status.status).toBe(1);
    expect(status.stdout).toContain('changed after install-hooks last ran');
    expect(managed(['install-hooks']).status).toBe(0);
    expect(managed(['status']).status).toBe(0);
    expect(await runPlugin(PRE_MCP_SCRIPT, before('projects.create'))).toEqual({});
  });

  it('with the organization\'s capability map, a relabelled action whose name says nothing (data.put) stays denied by *:write, in the copy and in the plugin\'s hook; an action the map lacks is denied; a read passes; without it diagnose WARNs', async () => {
    mkdirSync(dirname(MANAGED), { recursive: true, mode: 0o755 });
    writeFileSync(MANAGED, JSON.stringify({ 'deny-actions': '*:write' }));
    chmodSync(MANAGED, 0o644);
    const snapshotPath = join(dir, 'agentstack-capabilities.json');
    const saved = readFileSync(snapshotPath, 'utf8');
    const relabel = (cap: string | null) => {
      const snapshot = JSON.parse(saved) as { actions: Array<{ action: string; domain: string; required_cap: string | null }>; total_actions: number };
      snapshot.actions.push({ action: 'data.put', domain: 'data', required_cap: cap });
      snapshot.total_actions = snapshot.actions.length;
      writeFileSync(snapshotPath, `${JSON.stringify(snapshot, null, 2)}\n`);
    };
    // The server's list as GET /mcp/actions gives it: data.put needs data:write; auth.get_profile is left out; one entry is malformed.
    const server = (JSON.parse(saved) as { actions: Array<{ action: string; domain: string; required_cap: string | null }> }).actions.filter((a) => a.action !== 'auth.get_profile');
    const domains: Record<string, unknown[]> = {};
    for (const a of server) (domains[a.domain] ??= []).push({ action: a.action, required_cap: a.required_cap });
    (domains.data ??= []).push({ action: 'data.put', required_cap: 'data:write' }, { required_cap: 'data:write' });
    const catalog = join(tmp.path, 'catalog.json');
    writeFileSync(catalog, JSON.stringify({ total_actions: server.length + 2, domains }));
    const mapPath = join(GATE_DIR, 'capabilities.json');
    const row = () => (JSON.parse(spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: personEnv(), encoding: 'utf8' }).stdout) as { checks: Array<{ id: string; status: string; summary: string; fix?: string }> }).checks.find((c) => c.id === 'settings.enterprise_hooks');
    const gateFile = join(dir, 'agentstack-gate.json');
    /** The enterprise hooks file edited after install: the plugin's own hook checks AgentStack's calls again. */
    const hooksEdited = async () => {
      await new Promise((r) => setTimeout(r, 20));
      writeFileSync(HOOKS, readFileSync(HOOKS, 'utf8'));
    };
    try {
      relabel('data:read');
      rmSync(gateFile, { force: true });
      expect(managed(['install-hooks']).status).toBe(0);
      // Without the map the relabelled snapshot loosens the rule for a name that says nothing, and diagnose says so.
      expect(await runEnterprise('beforeMCPExecution', before('data.put'))).toEqual({});
      expect(row()).toMatchObject({ status: 'WARN', summary: expect.stringContaining('can be loosened'), fix: expect.stringContaining('install-hooks --catalog') });
      await hooksEdited();
      expect(await runPlugin(PRE_MCP_SCRIPT, before('data.put'))).toEqual({}); // and the plugin's hook compiles a gate passing it
      expect(existsSync(gateFile)).toBe(true);

      const installed = managed(['install-hooks', '--catalog', catalog]);
      expect(installed.status, installed.stderr).toBe(0);
      expect(installed.stdout).toContain(`wrote the capability map ${mapPath}: ${server.length + 1} actions (1 malformed entry of the catalog skipped`);
      expect(levelsRootOnly(mapPath)).toEqual([]);
      expect(statSync(mapPath).mode & 0o777).toBe(0o644);
      // The plugin's own hook, checking again: the gate compiled before the map is stale, and the map decides.
      await hooksEdited();
      expect((await runPlugin(PRE_MCP_SCRIPT, before('data.put'))).permission).toBe('deny');
      expect(managed(['install-hooks']).status).toBe(0); // in place again (the map kept)
      expect(existsSync(mapPath)).toBe(true);
      for (const cap of ['data:read', null]) {
        relabel(cap);
        const denied = await runEnterprise('beforeMCPExecution', before('data.put'));
        expect(denied.permission).toBe('deny');
        expect(String(denied.user_message)).toContain(`set by your organization in ${MANAGED}`);
      }
      const absent = await runEnterprise('beforeMCPExecution', before('auth.get_profile'));
      expect(absent.permission).toBe('deny');
      expect(String(absent.user_message)).toContain('the organization\'s capability map does not list it');
      expect(await runEnterprise('beforeMCPExecution', before('projects.list'))).toEqual({});
      const status = JSON.parse(managed(['status', '--json']).stdout) as { capability_map: { in_place: boolean; actions: number; written_at: string } };
      expect(status.capability_map).toMatchObject({ in_place: true, actions: server.length + 1 });
      expect(Date.parse(status.capability_map.written_at)).toBeGreaterThan(Date.now() - 600_000);
      expect(managed(['status']).stdout).toContain(`The capability map: in place in ${mapPath} (${server.length + 1} actions, written `);
      expect(row()).toMatchObject({ status: 'PASS', summary: expect.stringContaining('the capability map: in place') });

      // A reinstall with the same catalog (from stdin) changes nothing.
      const before1 = statSync(mapPath);
      const again = spawnSync(process.execPath, [join(plugin, 'scripts/managed.mjs'), 'install-hooks', '--catalog', '-'], { input: readFileSync(catalog), encoding: 'utf8' });
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain('nothing changed');
      expect(statSync(mapPath).mtimeMs).toBe(before1.mtimeMs);
      expect(statSync(mapPath).ino).toBe(before1.ino);

      // The plugin's own hook, checking again (the hooks file changed after install), reads the map too.
      await hooksEdited();
      relabel(null);
      expect((await runPlugin(PRE_MCP_SCRIPT, before('data.put'))).permission).toBe('deny');
      expect((await runPlugin(PRE_MCP_SCRIPT, before('auth.get_profile'))).permission).toBe('deny');
      expect(await runPlugin(PRE_MCP_SCRIPT, before('projects.list'))).toEqual({});

      expect(managed(['remove-hooks']).stdout).toContain(`removed the capability map ${mapPath}`);
      expect(existsSync(mapPath)).toBe(false);
      expect(existsSync(GATE_DIR)).toBe(false);
    } finally {
      writeFileSync(snapshotPath, saved);
      rmSync(gateFile, { force: true });
    }
  });

  it('both gates on one call, in either order: the same answer, one journal record', async () => {
    mkdirSync(dirname(MANAGED), { recursive: true, mode: 0o755 });
    writeFileSync(MANAGED, JSON.stringify({ 'deny-actions': 'projects.create' }));
    chmodSync(MANAGED, 0o644);
    expect(managed(['install-hooks']).status).toBe(0);
    for (const order of [['plugin', 'org'], ['org', 'plugin']]) {
      rmSync(join(dir, 'agentstack-journal.jsonl'), { force: true });
      const answers: Record<string, Record<string, unknown>> = {};
      for (const who of order) answers[who] = who === 'org' ? await runEnterprise('beforeMCPExecution', before('projects.create')) : await runPlugin(PRE_MCP_SCRIPT, before('projects.create'));
      expect(answers.org!.permission).toBe('deny');
      expect(answers.plugin).toEqual({}); // the plugin's hook leaves the call to the organization's gate
      expect(journalLines()).toBe(1);
      rmSync(join(dir, 'agentstack-journal.jsonl'), { force: true });
      for (const who of order) {
        if (who === 'org') await runEnterprise('afterMCPExecution', after('projects.list'));
        else await runPlugin(AFTER_SCRIPT, after('projects.list'));
      }
      expect(journalLines()).toBe(1);
    }
    // Without the organization's gate the plugin's own hooks check and journal again.
    expect(managed(['remove-hooks']).status).toBe(0);
    expect((await runPlugin(PRE_MCP_SCRIPT, before('projects.create'))).permission).toBe('deny');
    expect(existsSync(orgMarkerPath('linux'))).toBe(false);
  });
});
