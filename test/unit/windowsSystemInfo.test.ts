/**
 * Windows' fixed facts (the registry's ProgramData, who may change the managed file) as pure decisions over the
 * tools' output, and the tools' runner against recording stand-ins (Windows cannot run here).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aclTrustProblem, parseAclListing, parseRegValue, programDataFolder, programDataFrom, systemToolRunner, windowsTrustProblem, type RunTool } from '../../lib/platform/windows/systemInfo.js';
import { readManagedSettings } from '../../lib/agentstack/settings/managed.js';
import { managedSettingsGate } from '../../lib/commands/diagnose/gatesState.js';
import { windowsFacts } from '../../lib/agentstack/settings/windowsFacts.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { tempDir } from '../helpers/repo.js';

const REG_PROGRAM_DATA = '\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList\r\n    ProgramData    REG_EXPAND_SZ    %SystemDrive%\\ProgramData\r\n\r\n';
const REG_SYSTEM_ROOT = '\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\r\n    SystemRoot    REG_SZ    D:\\WINDOWS\r\n\r\n';
const SYSTEM = 'S-1-5-18';
const ADMINS = 'S-1-5-32-544';
const USERS = 'S-1-5-32-545';
const FILE = 'C:\\ProgramData\\AgentStack\\managed-settings.json';
const DIR = 'C:\\ProgramData\\AgentStack';
const listing = (owner: string, aces: string[], path = FILE) => [`path ${path}`, `owner ${owner}`, ...aces.map((a) => `ace ${a}`)].join('\r\n');
const adminOnly = (path: string) => listing(ADMINS, [`${SYSTEM} Allow 2032127 None`, `${ADMINS} Allow 2032127 None`, `${USERS} Allow 1179817 None`], path);

describe('the registry\'s ProgramData folder', () => {
  it('reads reg query\'s output; %SystemDrive% from the registry\'s SystemRoot; anything else falls back', () => {
    expect(parseRegValue(REG_PROGRAM_DATA, 'ProgramData')).toBe('%SystemDrive%\\ProgramData');
    expect(parseRegValue(REG_SYSTEM_ROOT, 'systemroot')).toBe('D:\\WINDOWS');
    expect(parseRegValue('ERROR: The system was unable to find the specified registry key or value.', 'ProgramData')).toBeNull();
    expect(programDataFrom('%SystemDrive%\\ProgramData', 'D:\\WINDOWS')).toBe('D:\\ProgramData');
    expect(programDataFrom('E:\\Shared\\ProgramData\\', null)).toBe('E:\\Shared\\ProgramData');
    expect(programDataFrom('%SystemDrive%\\ProgramData', null)).toBeNull();
    expect(programDataFrom('%USERPROFILE%\\ProgramData', 'C:\\WINDOWS')).toBeNull();
    expect(programDataFrom('ProgramData', 'C:\\WINDOWS')).toBeNull();
    const run: RunTool = (_tool, args) => (args.includes('ProgramData') ? REG_PROGRAM_DATA : REG_SYSTEM_ROOT);
    expect(programDataFolder(run)).toBe('D:\\ProgramData');
    expect(programDataFolder(() => null)).toBe('C:\\ProgramData');
  });

  it('the managed file\'s place follows the registry, never ProgramData or ALLUSERSPROFILE in the environment', () => {
    const saved = { ProgramData: process.env.ProgramData, ALLUSERSPROFILE: process.env.ALLUSERSPROFILE };
    process.env.ProgramData = 'C:\\Users\\mallory\\pd';
    process.env.ALLUSERSPROFILE = 'C:\\Users\\mallory\\pd';
    try {
      const run: RunTool = (tool, args) => (tool === 'reg' ? (args.includes('ProgramData') ? REG_PROGRAM_DATA : REG_SYSTEM_ROOT) : null);
      expect(readManagedSettings({ platform: 'win32', runTool: run }).path).toBe('D:\\ProgramData\\AgentStack\\managed-settings.json');
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });
});

describe('who may change the managed file (Get-Acl by SID)', () => {
  it('administrators, SYSTEM and TrustedInstaller only: trusted; Users reading is fine', () => {
    expect(aclTrustProblem(parseAclListing(`${adminOnly(FILE)}\r\n${adminOnly(DIR)}`), [FILE, DIR])).toBeNull();
  });
  it('a user owner, a user or Everyone that may write, or no listing: not trusted, naming who', () => {
    expect(aclTrustProblem(parseAclListing(listing('S-1-5-21-1-2-3-1001', [])), [FILE])).toBe(`${FILE} belongs to S-1-5-21-1-2-3-1001, not an administrator`);
    expect(aclTrustProblem(parseAclListing(listing(ADMINS, [`${USERS} Allow 1245631 None`])), [FILE])).toBe(`${FILE} can be changed by ${USERS} (Users)`);
    expect(aclTrustProblem(parseAclListing(listing(ADMINS, ['S-1-1-0 Allow 268435456 None'])), [FILE])).toContain('(Everyone)');
    expect(aclTrustProblem(parseAclListing(adminOnly(FILE)), [FILE, DIR])).toBe(`the access list of ${DIR} cannot be read`);
  });
  it('diagnose names the fix with icacls (by SID) for a Windows path', () => {
    const read = { path: FILE, exists: true, broken: false, values: {}, problems: [], rejected: [], trusted: false, distrust: `${FILE} can be changed by ${USERS} (Users)`, keys: [], strict: {} };
    expect(managedSettingsGate(read)).toMatchObject({ status: 'FAIL', fix: expect.stringMatching(/icacls .*\/setowner \*S-1-5-32-544/) });
  });
  it('a deny entry, or one that only passes to children (CREATOR OWNER), gives nobody the file', () => {
    expect(aclTrustProblem(parseAclListing(listing(SYSTEM, [`${USERS} Deny 278 None`, 'S-1-3-0 Allow 268435456 InheritOnly'])), [FILE])).toBeNull();
  });
});

describe('the system tools\' runner (recording stand-ins)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => { tmp = tempDir('agentstack-win-tools-'); });
  afterEach(() => tmp.cleanup());

  function standIn(name: string, output: string): void {
    writeFileSync(join(tmp.path, `${name}.out`), output);
    writeFileSync(join(tmp.path, name), `#!/bin/sh\nprintf '%s\\n' "$@" >> "${join(tmp.path, `${name}.args`)}"\ncat "${join(tmp.path, `${name}.out`)}"\n`);
    chmodSync(join(tmp.path, name), 0o755);
  }

  it.skipIf(process.platform === 'win32')('runs reg from the system folder (not PATH) with the HKLM queries', () => {
    standIn('reg', REG_PROGRAM_DATA);
    const run = systemToolRunner({ systemDir: tmp.path, platform: 'linux' });
    expect(programDataFolder(run)).toBe('C:\\ProgramData'); // %SystemDrive% needs SystemRoot: the stand-in has none
    const args = readFileSync(join(tmp.path, 'reg.args'), 'utf8').split('\n');
    expect(args.slice(0, 4)).toEqual(['query', 'HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList', '/v', 'ProgramData']);
    expect(args).toContain('SystemRoot');
  });

  it.skipIf(process.platform === 'win32')('runs PowerShell Get-Acl once for the file and its folder; a failed run is not trusted', () => {
    const dir = join(tmp.path, 'etc');
    mkdirSync(dir);
    const file = join(dir, 'managed-settings.json');
    writeFileSync(file, JSON.stringify({ 'base-url': 'https://org.example.test', 'deny-actions': 'x.y' }));
    standIn('powershell', `${listing(ADMINS, [`${USERS} Allow 1245631 None`], file)}\r\n${adminOnly(dir)}\r\n`);
    const run = systemToolRunner({ systemDir: tmp.path, platform: 'linux' });
    const read = readManagedSettings({ path: file, platform: 'win32', runTool: run });
    expect(read).toMatchObject({ trusted: false, keys: ['deny-actions'], distrust: `${file} can be changed by ${USERS} (Users)` });
    const args = readFileSync(join(tmp.path, 'powershell.args'), 'utf8').split('\n');
    expect(args.slice(0, 3)).toEqual(['-NoProfile', '-NonInteractive', '-EncodedCommand']);
    const script = Buffer.from(args[3]!, 'base64').toString('utf16le');
    expect(script).toContain(`'${file}','${dir}'`);
    expect(script).toContain('GetAccessRules($true,$true,$sid)');
    expect(windowsTrustProblem([file], systemToolRunner({ systemDir: join(tmp.path, 'none'), platform: 'linux' }))).toContain('cannot be read');
  });
});

describe('what the tools said is kept, so a hook run does not start them again', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => { tmp = tempDir('agentstack-win-facts-'); });
  afterEach(() => tmp.cleanup());

  it('the folder for a day; a trust verdict for an hour, while the file and its folder are unchanged', () => {
    const record = join(tmp.path, 'agentstack-windows-managed.json');
    const etc = join(tmp.path, 'etc');
    mkdirSync(etc);
    const file = join(etc, 'managed-settings.json');
    writeFileSync(file, '{}');
    const calls: string[] = [];
    const run: RunTool = (tool, args) => {
      calls.push(tool);
      if (tool === 'reg') return args.includes('ProgramData') ? REG_PROGRAM_DATA : REG_SYSTEM_ROOT;
      return `${listing(ADMINS, [`${USERS} Allow 1245631 None`], file)}\r\n${adminOnly(etc)}\r\n`;
    };
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    expect(windowsFacts(run, record, t0).programData()).toBe('D:\\ProgramData');
    expect(windowsFacts(run, record, t0 + 60_000).programData()).toBe('D:\\ProgramData');
    expect(calls).toEqual(['reg', 'reg']);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    const first = windowsFacts(run, record, t0).trustProblem(file);
    expect(first).toContain('(Users)');
    expect(windowsFacts(run, record, t0 + 60_000).trustProblem(file)).toBe(first);
    expect(calls.filter((c) => c === 'powershell')).toHaveLength(1);
    writeFileSync(file, '{"policy":"readonly"}'); // a new file: asked again
    windowsFacts(run, record, t0 + 120_000).trustProblem(file);
    expect(calls.filter((c) => c === 'powershell')).toHaveLength(2);
    windowsFacts(run, record, t0 + 2 * 3_600_000).trustProblem(file); // an hour on: asked again
    windowsFacts(run, record, t0 + 25 * 3_600_000).programData(); // a day on
    expect(calls.filter((c) => c === 'powershell')).toHaveLength(3);
    expect(calls.filter((c) => c === 'reg')).toHaveLength(4);
    writeFileSync(record, '{"programData":{"value":"relative","at":0}}'); // what the record holds is checked
    windowsFacts(run, record, t0).programData();
    expect(calls.filter((c) => c === 'reg')).toHaveLength(6);
  });

  it('readManagedSettings keeps them in the record it is given, and nowhere when it is given only a tool runner', () => {
    const record = join(tmp.path, 'agentstack-windows-managed.json');
    const etc = join(tmp.path, 'etc');
    mkdirSync(etc);
    const file = join(etc, 'managed-settings.json');
    writeFileSync(file, '{"policy":"readonly"}');
    const run: RunTool = (tool) => (tool === 'reg' ? REG_SYSTEM_ROOT : `${adminOnly(file)}\r\n${adminOnly(etc)}\r\n`);
    expect(readManagedSettings({ path: file, platform: 'win32', runTool: run }).trusted).toBe(true);
    expect(existsSync(record)).toBe(false);
    expect(readManagedSettings({ path: file, platform: 'win32', runTool: run, windowsRecord: record }).trusted).toBe(true);
    expect(JSON.parse(readFileSync(record, 'utf8'))).toMatchObject({ trust: { distrust: null } });
  });

  it('with no tool runner given, the record is the Cursor dir\'s (here the tools cannot run: not trusted, and that is kept)', () => {
    const cursorDir = join(tmp.path, 'cursor');
    mkdirSync(cursorDir);
    const file = join(tmp.path, 'managed-settings.json');
    writeFileSync(file, '{"policy":"readonly"}');
    const saved = process.env.AGENTSTACK_CURSOR_DIR;
    process.env.AGENTSTACK_CURSOR_DIR = cursorDir;
    try {
      expect(readManagedSettings({ path: file, platform: 'win32' }).trusted).toBe(false);
      expect(existsSync(cursorPaths(process.env).windowsManaged)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.AGENTSTACK_CURSOR_DIR; else process.env.AGENTSTACK_CURSOR_DIR = saved;
    }
  });
});
