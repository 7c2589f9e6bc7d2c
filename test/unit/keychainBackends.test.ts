/**
 * The macOS and Windows keychain backends against recording stand-ins for `security` and `powershell` (POSIX shell
 * scripts on PATH that log their arguments and standard input, and keep the secret in a file as the real store
 * would): the secret is never in any argument, the commands are the documented ones, and a put, get and delete go
 * round. What the real tools do with those commands is not proven here (no macOS or Windows runner): docs/SECURITY.md
 * says so.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../lib/platform/findExecutable.js';
import { addCommand, macKeychain } from '../../lib/platform/keychain/macos.js';
import { credentialScript, powershellArgs, targetName, windowsCredentialManager } from '../../lib/platform/keychain/windows.js';
import { secretServiceKeychain, sessionBusProblem } from '../../lib/platform/keychain/secretService.js';
import { systemKeychain } from '../../lib/platform/keychain/system.js';
import { tempDir } from '../helpers/repo.js';
import { expectWithinDeadline, timed, timerMs } from '../helpers/deadline.js';
import { notRunWhen } from '../helpers/notRun.js';

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

describe('Windows Credential Manager through PowerShell (recording stand-in)', () => {
  // Decodes -EncodedCommand to learn the operation (CredWriteW / CredReadW / CredDeleteW); the secret comes on stdin.
  const body = `script=$(printf '%s' "$6" | base64 -d | iconv -f UTF-16LE -t UTF-8)
case "$script" in
  *CredWriteW\\(\\[ref\\]*) printf '%s' "$IN" > "$STORE" ;;
  *CredReadW\\(\\$target*) [ -f "$STORE" ] || exit 3; cat "$STORE" ;;
  *CredDeleteW\\(\\$target*) [ -f "$STORE" ] || exit 3; rm -f "$STORE" ;;
  *) exit 2 ;;
esac`;

  it('put, get and delete: the scripts call CredWriteW / CredReadW / CredDeleteW, the secret only on stdin', notRunWhen((!findOnPath('iconv') || !findOnPath('base64')) && 'iconv or base64 is not installed (the stand-in PowerShell decodes with them)'), async () => {
    const { path, env } = standIn('powershell', body);
    const keychain = windowsCredentialManager({ command: path, env });
    await keychain.put(KEY, SECRET, 'AgentStack refresh token');
    expect(await keychain.get(KEY)).toBe(SECRET);
    expect(await keychain.delete(KEY)).toBe(true);
    expect(await keychain.get(KEY)).toBeNull();
    const seen = calls();
    expect(seen).toHaveLength(4);
    for (const call of seen) {
      expect(call.args.slice(0, 5)).toEqual(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
      const script = Buffer.from(call.args[5]!, 'base64').toString('utf16le');
      expect(script).toContain("Add-Type -Namespace KeychainNative -Name Cred");
      expect(script).toContain(`$target = '${targetName(KEY)}'`);
      expect(script).not.toContain(SECRET);
      expect(call.args.join(' ')).not.toContain(SECRET);
    }
    expect(seen[0]!.stdin).toBe(SECRET);
    expect(Buffer.from(seen[0]!.args[5]!, 'base64').toString('utf16le')).toContain('[KeychainNative.Cred]::CredWriteW([ref]$c, 0)');
    expect(Buffer.from(seen[1]!.args[5]!, 'base64').toString('utf16le')).toContain('[KeychainNative.Cred]::CredReadW($target, 1, 0, [ref]$p)');
    expect(seen[1]!.stdin).toBe('');
  });

  it('the scripts: a generic credential (type 1) persisted for this user on this machine, read as UTF-8; a name with a quote is escaped', () => {
    const put = credentialScript('put', { ...KEY, account: "it's" }, 'label');
    expect(put).toContain('$c.Type = 1; $c.Persist = 2;');
    expect(put).toContain("$c.UserName = 'it''s'");
    expect(put).toContain('[Console]::In.ReadToEnd()');
    expect(credentialScript('get', KEY)).toContain('if ($err -eq 1168) { exit 3 }');
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
  });
});
