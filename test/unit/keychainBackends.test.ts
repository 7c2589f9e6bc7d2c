/**
 * The macOS and Windows keychain backends against recording stand-ins for `security` and `powershell` (POSIX shell
 * scripts on PATH that log their arguments and standard input, and keep the secret in a file as the real store
 * would): the secret is never in any argument, the commands are the documented ones, and a put, get and delete go
 * round. What the real tools do with those commands is not proven here (no macOS or Windows runner): docs/SECURITY.md
 * says so.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../lib/platform/findExecutable.js';
import { addCommand, macKeychain, SECURITY_LINE_BYTES } from '../../lib/platform/keychain/macos.js';
import { CREDENTIAL_SCRIPTS, credentialInput, powershellArgs, targetName, windowsCredentialManager } from '../../lib/platform/keychain/windows.js';
import { secretServiceKeychain, sessionBusProblem } from '../../lib/platform/keychain/secretService.js';
import { systemKeychain } from '../../lib/platform/keychain/system.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { expectWithinDeadline, timed, timerMs } from '../helpers/deadline.js';
import { notRunWhen } from '../helpers/notRun.js';

const STANDINS = join(REPO_ROOT, 'test/fixtures/standIns');
const SECRET = 'rt_Zq9-example.refresh~token_0123456789abcdef';
const KEY = { service: 'agentstack-cursor', server: 'https://agentstack.example/mcp', account: '/home/a person/.cursor' };
let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir('agentstack-standin-'); });
afterEach(() => dir.cleanup());

interface Call { args: string[]; stdin: string }
const calls = (): Call[] => (existsSync(join(dir.path, 'calls.jsonl')) ? readFileSync(join(dir.path, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Call) : []);

/**
 * A stand-in named `name` on a PATH of its own: it records argv and stdin (JSON lines, through node), then runs
 * `body` (sh) with the stdin in $IN.
 */
function standIn(name: string, body: string): { path: string; env: NodeJS.ProcessEnv } {
  const bin = join(dir.path, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(dir.path, 'calls.jsonl');
  const record = `${JSON.stringify(process.execPath)} -e 'const fs=require("fs");fs.appendFileSync(${JSON.stringify(log)},JSON.stringify({args:process.argv.slice(1),stdin:fs.readFileSync(process.env.IN_FILE,"utf8")})+"\\n")' -- "$@"`;
  const script = `#!/bin/sh\nIN_FILE=$(mktemp)\nexport IN_FILE\ncat > "$IN_FILE"\n${record}\nIN=$(cat "$IN_FILE")\nrm -f "$IN_FILE"\nSTORE=${JSON.stringify(join(dir.path, 'store'))}\n${body}\n`;
  const path = join(bin, name);
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return { path, env: { PATH: `${bin}:${process.env.PATH}` } };
}

/**
 * A stand-in written in JavaScript (test/fixtures/standIns/NAME.cjs) on a PATH of its own, logging to
 * `standin.jsonl` and keeping its store in `standin-store.json`.
 */
function nodeStandIn(name: string): { path: string; env: NodeJS.ProcessEnv; log: () => Array<Record<string, unknown>> } {
  const bin = join(dir.path, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(dir.path, 'standin.jsonl');
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(STANDINS, `${name}.cjs`))} "$@"\n`);
  chmodSync(path, 0o755);
  return {
    path,
    env: { PATH: `${bin}:${process.env.PATH}`, STANDIN_LOG: log, STANDIN_STORE: join(dir.path, 'standin-store.json') },
    log: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []),
  };
}

/** A resource a hostile MCP server may serve (it covers `http://H/mcp` once parsed as a URL). */
const HOSTILE = 'http://H/x\u2019;Start-Process calc.exe;\u2019/../mcp';

describe('macOS Keychain through security (recording stand-in)', () => {
  // Acts as the documented commands do: -i reads "add-generic-password ... -X <hex>" from stdin; find prints the
  // password with -w; a missing item exits 44.
  const body = `case "$1" in
  -i) hex=$(printf '%s' "$IN" | sed -n 's/.* -X \\([0-9a-f]*\\)$/\\1/p'); printf '%s' "$hex" | xxd -r -p > "$STORE" ;;
  find-generic-password) [ -f "$STORE" ] || exit 44; cat "$STORE"; echo ;;
  delete-generic-password) [ -f "$STORE" ] || exit 44; rm -f "$STORE" ;;
  *) exit 2 ;;
esac`;

  it('put goes through security -i with the secret hex-encoded on stdin; get and delete name the entry only', notRunWhen(!findOnPath('xxd') && 'xxd is not installed (the stand-in security decodes with it)'), async () => {
    const { path, env } = standIn('security', body);
    const keychain = macKeychain({ command: path, env });
    await keychain.put(KEY, SECRET, 'AgentStack refresh token');
    expect(await keychain.get(KEY)).toBe(SECRET);
    expect(await keychain.delete(KEY)).toBe(true);
    expect(await keychain.get(KEY)).toBeNull();
    expect(await keychain.delete(KEY)).toBe(false);
    const seen = calls();
    expect(seen.map((c) => c.args[0])).toEqual(['-i', 'find-generic-password', 'delete-generic-password', 'find-generic-password', 'delete-generic-password']);
    expect(seen[0]!.args).toEqual(['-i']);
    expect(seen[0]!.stdin).toBe(`add-generic-password -U -s "agentstack-cursor:https://agentstack.example/mcp" -a "/home/a person/.cursor" -l "AgentStack refresh token" -X ${Buffer.from(SECRET).toString('hex')}\n`);
    expect(seen[1]!.args).toEqual(['find-generic-password', '-s', 'agentstack-cursor:https://agentstack.example/mcp', '-a', '/home/a person/.cursor', '-w']);
    expect(seen[2]!.args).toEqual(['delete-generic-password', '-s', 'agentstack-cursor:https://agentstack.example/mcp', '-a', '/home/a person/.cursor']);
    for (const call of seen) expect(call.args.join(' ')).not.toContain(SECRET);
    for (const call of seen) expect(call.stdin).not.toContain(SECRET); // even stdin holds it only hex-encoded
  });

  it('quotes names for security -i and refuses control characters', () => {
    expect(addCommand({ ...KEY, account: 'a "b" \\c' }, 'x', 'l')).toContain('-a "a \\"b\\" \\\\c"');
    expect(() => addCommand({ ...KEY, account: 'a\nb' }, 'x', 'l')).toThrow(/control character/);
  });

  it('a complaint from security -i (it exits 0 after a failed command) is a failure; a locked keychain is named', async () => {
    const { path, env } = standIn('security', 'echo "security: SecKeychainItemCreateFromContent: User interaction is not allowed." >&2; exit 0');
    await expect(macKeychain({ command: path, env }).put(KEY, SECRET, 'l')).rejects.toMatchObject({ problem: 'locked' });
  });

  it('a complaint that echoes the command never carries the hex-encoded secret into the message', async () => {
    const { path, env } = standIn('security', 'echo "security: unknown option in: $IN" >&2; exit 1');
    const error = await macKeychain({ command: path, env }).put(KEY, SECRET, 'l').catch((e: Error) => e);
    expect(String((error as Error).message)).toContain('security failed: security: unknown option in: add-generic-password');
    expect(String((error as Error).message)).not.toContain(Buffer.from(SECRET).toString('hex').slice(0, 16));
  });

  it('a security that hangs is given up after the bound', async () => {
    // The same call to a stand-in that answers at once, in this run: what starting the tool costs here now.
    const quick = standIn('security', 'exit 44');
    const started = performance.now();
    await macKeychain({ command: quick.path, env: quick.env, timeoutMs: 300 }).get(KEY).catch(() => null);
    const baselineMs = performance.now() - started;
    const { path, env } = standIn('security', 'exec sleep 30');
    const [{ value: error, ms }, deadlineMs] = await Promise.all([timed(() => macKeychain({ command: path, env, timeoutMs: 300 }).get(KEY).catch((e: unknown) => e)), timerMs(300)]);
    expect(error).toMatchObject({ problem: 'timeout' });
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 300, baselineMs, what: 'a security that hangs' });
  });
});

describe('macOS Keychain through a stand-in that reads `security -i` as SecurityTool does (4,095-byte reads)', () => {
  const LABEL = 'AgentStack refresh token (Cursor plugin)';
  type Seen = { args: string[]; commands: string[][]; stdin: string };

  it('a round trip through security -i; a line is refused before it would not fit in one read, never split', async () => {
    const sec = nodeStandIn('security');
    const keychain = macKeychain({ command: sec.path, env: sec.env });
    await keychain.put(KEY, SECRET, LABEL);
    expect(await keychain.get(KEY)).toBe(SECRET);
    // The longest token that fits this entry's line is stored whole, as one command; one byte more is refused.
    const names = Buffer.byteLength(addCommand(KEY, '', LABEL)) - 1;
    const longest = 'r'.repeat(Math.floor((SECURITY_LINE_BYTES - names) / 2));
    await keychain.put(KEY, longest, LABEL);
    expect(await keychain.get(KEY)).toBe(longest);
    const seen = sec.log() as Seen[];
    expect(seen.filter((c) => c.args[0] === '-i').map((c) => c.commands)).toEqual([
      [['add-generic-password', '-U', '-s', `agentstack-cursor:${KEY.server}`, '-a', KEY.account, '-l', LABEL, '-X', Buffer.from(SECRET).toString('hex')]],
      [['add-generic-password', '-U', '-s', `agentstack-cursor:${KEY.server}`, '-a', KEY.account, '-l', LABEL, '-X', Buffer.from(longest).toString('hex')]],
    ]);
    const calls = seen.length;
    const refused = await keychain.put(KEY, `${longest}r`, LABEL).catch((e: unknown) => e);
    expect(refused).toMatchObject({ problem: 'refused', message: expect.stringContaining('keep it in the file instead (credential-store auto or file)') });
    expect((refused as Error).message).not.toContain(longest);
    expect(sec.log()).toHaveLength(calls);
    expect(await keychain.get(KEY)).toBe(longest);
  });

  it('a genuine refresh token of 2,000 bytes is refused with the file named, not split into a second command', async () => {
    const sec = nodeStandIn('security');
    const token = `rt.${'A1b2-_'.repeat(333)}x`.slice(0, 2_000);
    const error = await macKeychain({ command: sec.path, env: sec.env }).put(KEY, token, LABEL).catch((e: unknown) => e);
    expect(error).toMatchObject({ problem: 'refused', message: expect.stringMatching(/^the refresh token \(2000 bytes\) is too long for the macOS Keychain .*credential-store auto or file\)$/) });
    expect(sec.log()).toEqual([]);
  });

  it('a hostile resource of 4,097 characters whose tail is another command: refused, nothing run', async () => {
    const sec = nodeStandIn('security');
    const keychain = macKeychain({ command: sec.path, env: sec.env });
    const head = 'add-generic-password -U -s "agentstack-cursor:';
    const tail = 'delete-generic-password -s victim -a x ';
    const server = `http://H/${'x'.repeat(4_095 - head.length - 'http://H/'.length)}${tail}`.padEnd(4_097, 'y');
    expect(server).toHaveLength(4_097);
    const error = await keychain.put({ ...KEY, server }, SECRET, LABEL).catch((e: unknown) => e);
    expect(error).toMatchObject({ problem: 'refused', message: expect.stringContaining("the keychain entry's names (server and folder,") });
    expect(sec.log()).toEqual([]);
    // The same through the stand-in, written as one line regardless: the second command is the server's.
    const run = spawnSync(sec.path, ['-i'], { input: `${head}${server}" -a "a" -l "l" -X 00\n`, env: { ...process.env, ...sec.env } });
    expect(run.status).not.toBeNull();
    expect((sec.log() as Seen[])[0]!.commands.map((c) => c[0])).toEqual(['add-generic-password', 'delete-generic-password']);
  });

  it('forget removes every entry of the folder with our label, whatever its server, and no other folder\'s', async () => {
    const sec = nodeStandIn('security');
    const keychain = macKeychain({ command: sec.path, env: sec.env });
    await keychain.put(KEY, SECRET, LABEL);
    await keychain.put({ ...KEY, server: 'https://agentstack.example' }, SECRET, LABEL);
    await keychain.put({ ...KEY, account: '/elsewhere/.cursor' }, SECRET, LABEL);
    await keychain.forget!({ service: KEY.service, account: KEY.account, label: LABEL });
    expect(await keychain.get(KEY)).toBeNull();
    expect(await keychain.get({ ...KEY, server: 'https://agentstack.example' })).toBeNull();
    expect(await keychain.get({ ...KEY, account: '/elsewhere/.cursor' })).toBe(SECRET);
    const deletes = (sec.log() as Seen[]).filter((c) => c.args[0] === 'delete-generic-password');
    expect(deletes.map((c) => c.args)).toEqual(Array(3).fill(['delete-generic-password', '-a', KEY.account, '-l', LABEL]));
  });

  it('names with a quote or a backslash are quoted as its tokenizer reads them; a control character is refused', async () => {
    const sec = nodeStandIn('security');
    const keychain = macKeychain({ command: sec.path, env: sec.env });
    const odd = { ...KEY, server: `${HOSTILE}"\\ '"`, account: '/Users/Jos\u00e9 "x"/.cursor' };
    await keychain.put(odd, SECRET, LABEL);
    expect(await keychain.get(odd)).toBe(SECRET);
    expect((sec.log() as Seen[])[0]!.commands).toEqual([['add-generic-password', '-U', '-s', `agentstack-cursor:${odd.server}`, '-a', odd.account, '-l', LABEL, '-X', Buffer.from(SECRET).toString('hex')]]);
    for (const bad of ['a\nb', 'a\0b', 'a\rb', 'a\x1bb']) {
      await expect(keychain.put({ ...KEY, server: bad }, SECRET, LABEL)).rejects.toMatchObject({ problem: 'refused' });
    }
    await expect(keychain.get({ ...KEY, server: 'a\nb' })).rejects.toMatchObject({ problem: 'refused' });
    expect(sec.log()).toHaveLength(2);
  });
});

describe('Windows Credential Manager through PowerShell (a stand-in that tokenizes as PowerShell does)', () => {
  it('put, get and delete: constant scripts calling CredWriteW / CredReadW / CredDeleteW, the names and the secret only on stdin', async () => {
    const ps = nodeStandIn('powershell');
    const keychain = windowsCredentialManager({ command: ps.path, env: ps.env });
    await keychain.put(KEY, SECRET, 'AgentStack refresh token');
    expect(await keychain.get(KEY)).toBe(SECRET);
    expect(await keychain.delete(KEY)).toBe(true);
    expect(await keychain.get(KEY)).toBeNull();
    const seen = ps.log() as Array<{ args: string[]; commands: string[]; stdin: string }>;
    expect(seen).toHaveLength(4);
    for (const call of seen) {
      expect(call.args.slice(0, 5)).toEqual(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
      const script = Buffer.from(call.args[5]!, 'base64').toString('utf16le');
      expect(Object.values(CREDENTIAL_SCRIPTS)).toContain(script);
      expect(script).not.toContain(KEY.server);
      expect(call.args.join(' ')).not.toContain(SECRET);
      expect(call.stdin.split('\n')[0]).toBe(Buffer.from(targetName(KEY)).toString('base64'));
    }
    expect(seen[0]!.stdin).toBe(`${[targetName(KEY), KEY.account, 'AgentStack refresh token', SECRET].map((v) => Buffer.from(v).toString('base64')).join('\n')}\n`);
    expect(seen[0]!.commands).toEqual(['Add-Type', 'New-Object']);
    expect(seen[1]!.stdin).not.toContain(Buffer.from(SECRET).toString('base64'));
  });

  it('a server name with PowerShell quotes (U+2019 as well as the apostrophe) is data: the same commands run, and the entry round-trips', async () => {
    const ps = nodeStandIn('powershell');
    const keychain = windowsCredentialManager({ command: ps.path, env: ps.env });
    await keychain.put(KEY, SECRET, 'l');
    const hostile = { ...KEY, server: HOSTILE, account: "C:\\Users\\o'brien\u2018x\u201B\u201A\\.cursor" };
    await keychain.put(hostile, `${SECRET}-hostile`, 'l');
    // What PowerShell would run for the hostile name is what it runs for a plain one.
    const seen = ps.log() as Array<{ commands: string[] }>;
    expect(seen[1]!.commands).not.toContain('Start-Process');
    expect(seen[1]!.commands).toEqual(seen[0]!.commands);
    expect(await keychain.get(hostile)).toBe(`${SECRET}-hostile`);
    expect(await keychain.delete(hostile)).toBe(true);
    expect(await keychain.get(KEY)).toBe(SECRET);
    for (const call of ps.log() as Array<{ commands: string[] }>) expect(['Add-Type', 'New-Object']).toEqual(expect.arrayContaining(call.commands));
    const store = JSON.parse(readFileSync(ps.env.STANDIN_STORE!, 'utf8')) as Record<string, { user: string }>;
    expect(Object.keys(store)).toEqual([targetName(KEY)]);
  });

  it('forget removes every generic credential of the folder under the service, whatever its server, and no other folder\'s', async () => {
    const ps = nodeStandIn('powershell');
    const keychain = windowsCredentialManager({ command: ps.path, env: ps.env });
    await keychain.put(KEY, SECRET, 'l');
    await keychain.put({ ...KEY, server: HOSTILE }, SECRET, 'l');
    await keychain.put({ ...KEY, account: '/elsewhere/.cursor' }, SECRET, 'l');
    await keychain.forget!({ service: KEY.service, account: KEY.account, label: 'l' });
    const store = JSON.parse(readFileSync(ps.env.STANDIN_STORE!, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(store)).toEqual([targetName({ ...KEY, account: '/elsewhere/.cursor' })]);
    const last = (ps.log() as Array<{ args: string[]; commands: string[]; stdin: string }>).at(-1)!;
    expect(Buffer.from(last.args[5]!, 'base64').toString('utf16le')).toBe(CREDENTIAL_SCRIPTS.forget);
    expect(last.stdin).toBe(`${Buffer.from('agentstack-cursor:*').toString('base64')}\n${Buffer.from(KEY.account).toString('base64')}\n`);
    expect(last.commands).toEqual(['Add-Type', 'New-Object']);
  });

  it('a name with a line break or NUL is refused before PowerShell runs', async () => {
    const ps = nodeStandIn('powershell');
    const keychain = windowsCredentialManager({ command: ps.path, env: ps.env });
    for (const server of ['http://H/a\nb', 'http://H/a\rb', 'http://H/a\0b', 'http://H/a\u2028b']) {
      await expect(keychain.put({ ...KEY, server }, SECRET, 'l')).rejects.toMatchObject({ problem: 'refused', message: expect.stringContaining("entry's server holds a line break or NUL") });
      await expect(keychain.get({ ...KEY, server })).rejects.toMatchObject({ problem: 'refused' });
    }
    await expect(keychain.put(KEY, 'a\nb', 'l')).rejects.toMatchObject({ problem: 'refused', message: expect.not.stringContaining('a\nb') });
    expect(ps.log()).toEqual([]);
  });

  it('the scripts: a generic credential (type 1) persisted for this user on this machine, its bytes as base64 both ways', () => {
    expect(CREDENTIAL_SCRIPTS.put).toContain('$c.Type = 1; $c.Persist = 2;');
    expect(CREDENTIAL_SCRIPTS.put).toContain('[Console]::In.ReadToEnd()');
    expect(CREDENTIAL_SCRIPTS.get).toContain('if ($err -eq 1168) { exit 3 }');
    expect(CREDENTIAL_SCRIPTS.get).toContain('[Console]::Out.Write([Convert]::ToBase64String($bytes))');
    expect(credentialInput({ ...KEY, server: HOSTILE })).toMatch(/^[A-Za-z0-9+/=\n]+$/);
    expect(powershellArgs('x').at(-1)).toBe(Buffer.from('x', 'utf16le').toString('base64'));
  });
});

describe('Secret Service (secret-tool) without a real service', () => {
  it('no session bus is said without running anything', () => {
    expect(sessionBusProblem({})).toBe('no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
    expect(sessionBusProblem({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' })).toBeNull();
    expect(secretServiceKeychain({ env: { PATH: '/nonexistent' } }).unavailable()).toBe('secret-tool (libsecret-tools) is not installed');
  });

  it('the system keychain speaks to a Unix socket bus itself, and runs secret-tool only for an address it does not speak', async () => {
    const { env } = standIn('secret-tool', `case "$1" in store) printf '%s' "$IN" > "$STORE" ;; lookup) [ -f "$STORE" ] || exit 1; cat "$STORE" ;; clear) rm -f "$STORE" ;; esac`);
    const viaTool = systemKeychain({ env: { ...env, DBUS_SESSION_BUS_ADDRESS: 'tcp:host=127.0.0.1,port=9' }, platform: 'linux' })!;
    await viaTool.put(KEY, SECRET, 'l');
    expect(await viaTool.get(KEY)).toBe(SECRET);
    expect(calls().map((c) => c.args[0])).toEqual(['store', 'lookup']);
    const direct = systemKeychain({ env: { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir.path, 'no-bus')}` }, platform: 'linux' })!;
    await expect(direct.get(KEY)).rejects.toMatchObject({ problem: 'unavailable', message: 'no D-Bus session bus' });
    expect(calls()).toHaveLength(2);
    expect(systemKeychain({ env: { PATH: '/nonexistent' }, platform: 'linux' })!.unavailable()).toBe('no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
  });

  it('store gets the secret on stdin and the attributes in argv (recording stand-in)', async () => {
    const { path, env } = standIn('secret-tool', `case "$1" in store) printf '%s' "$IN" > "$STORE" ;; lookup) [ -f "$STORE" ] || exit 1; cat "$STORE" ;; clear) rm -f "$STORE" ;; esac`);
    const keychain = secretServiceKeychain({ command: path, env: { ...env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' } });
    await keychain.put(KEY, SECRET, 'AgentStack refresh token');
    expect(await keychain.get(KEY)).toBe(SECRET);
    const seen = calls();
    expect(seen[0]).toEqual({ args: ['store', '--label=AgentStack refresh token', 'service', 'agentstack-cursor', 'server', 'https://agentstack.example/mcp', 'account', '/home/a person/.cursor'], stdin: SECRET });
    expect(seen[1]!.args).toEqual(['lookup', 'service', 'agentstack-cursor', 'server', 'https://agentstack.example/mcp', 'account', '/home/a person/.cursor']);
    await keychain.forget!({ service: KEY.service, account: KEY.account, label: 'l' });
    expect(calls()[2]!.args).toEqual(['clear', 'service', 'agentstack-cursor', 'account', '/home/a person/.cursor']);
    expect(await keychain.get(KEY)).toBeNull();
  });
});
