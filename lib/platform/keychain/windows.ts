/**
 * Windows: the Credential Manager (a generic credential, persisted for this user on this machine) through Windows
 * PowerShell calling advapi32's CredWriteW / CredReadW / CredDeleteW (Add-Type, P/Invoke). Each operation's script
 * is a constant in `-EncodedCommand`: the entry's names and the secret are written to its standard input (base64, one
 * line each), the secret read back from its standard output (base64). Exit 3: no such credential.
 */
import { findOnPath } from '../findExecutable.js';
import { complaint, runTool, type ToolResult } from './bounded.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainError, refuseBreaks, type Keychain, type SecretKey } from './types.js';

const NOT_FOUND = 3;

const NATIVE = `Add-Type -Namespace KeychainNative -Name Cred -MemberDefinition @'
[StructLayout(LayoutKind.Sequential, CharSet = CharSet.Unicode)]
public struct CREDENTIAL { public int Flags; public int Type; public string TargetName; public string Comment;
  public System.Runtime.InteropServices.ComTypes.FILETIME LastWritten; public int CredentialBlobSize; public IntPtr CredentialBlob;
  public int Persist; public int AttributeCount; public IntPtr Attributes; public string TargetAlias; public string UserName; }
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredWriteW(ref CREDENTIAL c, int flags);
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredReadW(string target, int type, int flags, out IntPtr c);
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredDeleteW(string target, int type, int flags);
[DllImport("advapi32.dll", CharSet = CharSet.Unicode, SetLastError = true)] public static extern bool CredEnumerateW(string filter, int flags, out int count, out IntPtr creds);
[DllImport("advapi32.dll")] public static extern void CredFree(IntPtr c);
'@ -UsingNamespace System.Runtime.InteropServices
$ErrorActionPreference = 'Stop'
`;

/** The Credential Manager's name for the entry. */
export function targetName(key: SecretKey): string {
  return `${key.service}:${key.server}:${key.account}`;
}

/**
 * The values of a call reach the script as data, never as script text: standard input holds one line per value, each
 * the base64 of its UTF-8 (target name, user name, comment, secret), and the script decodes them. No value is ever
 * quoted into PowerShell's grammar, whose quote characters include U+2018-U+201B besides the ASCII apostrophe, and
 * base64 reads the same whatever the console's code page.
 */
const READ_VALUES = `$in = [Console]::In.ReadToEnd().Split([char]10)
$target = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($in[0]))
`;

/** The constant script of each operation: no value and no secret in any of them. */
export const CREDENTIAL_SCRIPTS: Readonly<Record<'put' | 'get' | 'delete' | 'forget', string>> = {
  put: `${NATIVE}${READ_VALUES}$user = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($in[1]))
$comment = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($in[2]))
$bytes = [Convert]::FromBase64String($in[3])
$blob = [Runtime.InteropServices.Marshal]::AllocHGlobal($bytes.Length)
[Runtime.InteropServices.Marshal]::Copy($bytes, 0, $blob, $bytes.Length)
$c = New-Object KeychainNative.Cred+CREDENTIAL
$c.Type = 1; $c.Persist = 2; $c.TargetName = $target; $c.UserName = $user; $c.Comment = $comment
$c.CredentialBlobSize = $bytes.Length; $c.CredentialBlob = $blob
$ok = [KeychainNative.Cred]::CredWriteW([ref]$c, 0)
$err = [Runtime.InteropServices.Marshal]::GetLastWin32Error()
[Runtime.InteropServices.Marshal]::FreeHGlobal($blob)
if (-not $ok) { [Console]::Error.WriteLine("CredWrite failed: $err"); exit 1 }
`,
  get: `${NATIVE}${READ_VALUES}$p = [IntPtr]::Zero
if (-not [KeychainNative.Cred]::CredReadW($target, 1, 0, [ref]$p)) {
  $err = [Runtime.InteropServices.Marshal]::GetLastWin32Error(); if ($err -eq 1168) { exit 3 }
  [Console]::Error.WriteLine("CredRead failed: $err"); exit 1 }
$c = [Runtime.InteropServices.Marshal]::PtrToStructure($p, [type][KeychainNative.Cred+CREDENTIAL])
$bytes = New-Object byte[] $c.CredentialBlobSize
[Runtime.InteropServices.Marshal]::Copy($c.CredentialBlob, $bytes, 0, $c.CredentialBlobSize)
[KeychainNative.Cred]::CredFree($p)
[Console]::Out.Write([Convert]::ToBase64String($bytes))
`,
  delete: `${NATIVE}${READ_VALUES}if (-not [KeychainNative.Cred]::CredDeleteW($target, 1, 0)) {
  $err = [Runtime.InteropServices.Marshal]::GetLastWin32Error(); if ($err -eq 1168) { exit 3 }
  [Console]::Error.WriteLine("CredDelete failed: $err"); exit 1 }
`,
  // Every generic credential under the filter (`<service>:*`) whose user name is the account and whose name ends
  // with it. Lines: the filter, the account.
  forget: `${NATIVE}$in = [Console]::In.ReadToEnd().Split([char]10)
$filter = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($in[0]))
$user = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($in[1]))
$count = 0; $p = [IntPtr]::Zero
if (-not [KeychainNative.Cred]::CredEnumerateW($filter, 0, [ref]$count, [ref]$p)) {
  $err = [Runtime.InteropServices.Marshal]::GetLastWin32Error(); if ($err -eq 1168) { exit 0 }
  [Console]::Error.WriteLine("CredEnumerate failed: $err"); exit 1 }
$targets = New-Object System.Collections.Generic.List[string]
for ($i = 0; $i -lt $count; $i++) {
  $c = [Runtime.InteropServices.Marshal]::PtrToStructure([Runtime.InteropServices.Marshal]::ReadIntPtr($p, $i * [IntPtr]::Size), [type][KeychainNative.Cred+CREDENTIAL])
  if ($c.Type -eq 1 -and $c.UserName -ceq $user -and $c.TargetName.EndsWith(":" + $user, [StringComparison]::Ordinal)) { $targets.Add($c.TargetName) } }
[KeychainNative.Cred]::CredFree($p)
foreach ($t in $targets) { if (-not [KeychainNative.Cred]::CredDeleteW($t, 1, 0)) {
  $err = [Runtime.InteropServices.Marshal]::GetLastWin32Error(); if ($err -ne 1168) { [Console]::Error.WriteLine("CredDelete failed: $err"); exit 1 } } }
`,
};

const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');

/**
 * The standard input of an operation: the values, one base64 line each. A name with a line break or NUL is refused
 * (KeychainError `refused`) before anything runs.
 */
export function credentialInput(key: SecretKey, secret = '', label = ''): string {
  refuseBreaks({ service: key.service, server: key.server, account: key.account, label, secret });
  return [targetName(key), key.account, label].map(b64).concat(b64(secret)).join('\n') + '\n';
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
  const run = async (script: string, input: string) => {
    const tool = command();
    if (!tool) throw new KeychainError('unavailable', 'Windows PowerShell (powershell.exe) is not on PATH');
    return runTool(tool, powershellArgs(script), { input, env, timeoutMs });
  };
  return {
    name: 'Windows Credential Manager',
    unavailable: () => (command() ? null : 'Windows PowerShell (powershell.exe) is not on PATH'),
    async put(key, secret, label) {
      const result = await run(CREDENTIAL_SCRIPTS.put, credentialInput(key, secret, label));
      if (result.code !== 0) throw failure(result, timeoutMs);
    },
    async get(key) {
      const result = await run(CREDENTIAL_SCRIPTS.get, credentialInput(key));
      if (result.code === NOT_FOUND) return null;
      if (result.code !== 0) throw failure(result, timeoutMs);
      return Buffer.from(result.stdout.trim(), 'base64').toString('utf8') || null;
    },
    async delete(key) {
      const result = await run(CREDENTIAL_SCRIPTS.delete, credentialInput(key));
      if (result.code === NOT_FOUND) return false;
      if (result.code !== 0) throw failure(result, timeoutMs);
      return true;
    },
    async forget(match) {
      refuseBreaks({ service: match.service, account: match.account });
      const result = await run(CREDENTIAL_SCRIPTS.forget, `${b64(`${match.service}:*`)}\n${b64(match.account)}\n`);
      if (result.code !== 0) throw failure(result, timeoutMs);
    },
  };
}
