/**
 * Windows: the Credential Manager (a generic credential, persisted for this user on this machine) through Windows
 * PowerShell calling advapi32's CredWriteW / CredReadW / CredDeleteW (Add-Type, P/Invoke). The script goes in
 * `-EncodedCommand` and holds no secret; the secret is written to its standard input, and read back from its
 * standard output. Exit 3: no such credential.
 */
import { findOnPath } from '../findExecutable.js';
import { complaint, runTool, type ToolResult } from './bounded.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainError, type Keychain, type SecretKey } from './types.js';

const NOT_FOUND = 3;

const NATIVE = `Add-Type -Namespace KeychainNative -Name Cred -MemberDefinition @'
[StructLayout(LayoutKind.Sequential, CharSet = CharSet.Unicode)]
public struct CREDENTIAL { public int Flags; public int Type; public string TargetName; public string Comment;
  public System.Runtime.InteropServices.ComTypes.FILETIME LastWritten; public int CredentialBlobSize; public IntPtr CredentialBlob;
  public int Persist; public int AttributeCount; public IntPtr Attributes; public string TargetAlias; public string UserName; }
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredWriteW(ref CREDENTIAL c, int flags);
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredReadW(string target, int type, int flags, out IntPtr c);
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredDeleteW(string target, int type, int flags);
[DllImport("advapi32.dll")] public static extern void CredFree(IntPtr c);
'@ -UsingNamespace System.Runtime.InteropServices
$ErrorActionPreference = 'Stop'
`;

/** A PowerShell single-quoted string. */
const psString = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The Credential Manager's name for the entry. */
export function targetName(key: SecretKey): string {
  return `${key.service}:${key.server}:${key.account}`;
}

/** The script of each operation (no secret in any of them: `put` reads it from standard input). */
export function credentialScript(op: 'put' | 'get' | 'delete', key: SecretKey, label = ''): string {
  const target = `$target = ${psString(targetName(key))}\n`;
  if (op === 'put') {
    return `${NATIVE}${target}$secret = [Console]::In.ReadToEnd()
$bytes = [Text.Encoding]::UTF8.GetBytes($secret)
$blob = [Runtime.InteropServices.Marshal]::AllocHGlobal($bytes.Length)
[Runtime.InteropServices.Marshal]::Copy($bytes, 0, $blob, $bytes.Length)
$c = New-Object KeychainNative.Cred+CREDENTIAL
$c.Type = 1; $c.Persist = 2; $c.TargetName = $target; $c.UserName = ${psString(key.account)}; $c.Comment = ${psString(label)}
$c.CredentialBlobSize = $bytes.Length; $c.CredentialBlob = $blob
$ok = [KeychainNative.Cred]::CredWriteW([ref]$c, 0)
$err = [Runtime.InteropServices.Marshal]::GetLastWin32Error()
[Runtime.InteropServices.Marshal]::FreeHGlobal($blob)
if (-not $ok) { [Console]::Error.WriteLine("CredWrite failed: $err"); exit 1 }
`;
  }
  if (op === 'get') {
    return `${NATIVE}${target}$p = [IntPtr]::Zero
if (-not [KeychainNative.Cred]::CredReadW($target, 1, 0, [ref]$p)) {
  $err = [Runtime.InteropServices.Marshal]::GetLastWin32Error(); if ($err -eq 1168) { exit 3 }
  [Console]::Error.WriteLine("CredRead failed: $err"); exit 1 }
$c = [Runtime.InteropServices.Marshal]::PtrToStructure($p, [type][KeychainNative.Cred+CREDENTIAL])
$bytes = New-Object byte[] $c.CredentialBlobSize
[Runtime.InteropServices.Marshal]::Copy($c.CredentialBlob, $bytes, 0, $c.CredentialBlobSize)
[KeychainNative.Cred]::CredFree($p)
[Console]::Out.Write([Text.Encoding]::UTF8.GetString($bytes))
`;
  }
  return `${NATIVE}${target}if (-not [KeychainNative.Cred]::CredDeleteW($target, 1, 0)) {
  $err = [Runtime.InteropServices.Marshal]::GetLastWin32Error(); if ($err -eq 1168) { exit 3 }
  [Console]::Error.WriteLine("CredDelete failed: $err"); exit 1 }
`;
}

/** PowerShell's arguments for a script: no profile, no prompts, the script UTF-16LE base64-encoded. */
export function powershellArgs(script: string): string[] {
  return ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', Buffer.from(script, 'utf16le').toString('base64')];
}

function failure(result: ToolResult, timeoutMs: number): KeychainError {
  if (result.timedOut) return new KeychainError('timeout', `the Windows Credential Manager did not answer within ${timeoutMs / 1000} s`);
  if (result.spawnError) return new KeychainError('unavailable', `PowerShell could not be started (${result.spawnError})`);
  return new KeychainError('failed', `the Windows Credential Manager failed: ${complaint(result)}`);
}

export function windowsCredentialManager(options: { env?: NodeJS.ProcessEnv; command?: string; timeoutMs?: number } = {}): Keychain {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const command = () => options.command ?? findOnPath('powershell', { env, platform: 'win32' });
  const run = async (script: string, input?: string) => {
    const tool = command();
    if (!tool) throw new KeychainError('unavailable', 'Windows PowerShell (powershell.exe) is not on PATH');
    return runTool(tool, powershellArgs(script), { input, env, timeoutMs });
  };
  return {
    name: 'Windows Credential Manager',
    unavailable: () => (command() ? null : 'Windows PowerShell (powershell.exe) is not on PATH'),
    async put(key, secret, label) {
      const result = await run(credentialScript('put', key, label), secret);
      if (result.code !== 0) throw failure(result, timeoutMs);
    },
    async get(key) {
      const result = await run(credentialScript('get', key));
      if (result.code === NOT_FOUND) return null;
      if (result.code !== 0) throw failure(result, timeoutMs);
      return result.stdout || null;
    },
    async delete(key) {
      const result = await run(credentialScript('delete', key));
      if (result.code === NOT_FOUND) return false;
      if (result.code !== 0) throw failure(result, timeoutMs);
      return true;
    },
  };
}
