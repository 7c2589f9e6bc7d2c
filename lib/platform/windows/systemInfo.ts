/**
 * Facts of a Windows machine that its users cannot move: the ProgramData folder as the registry (HKLM) holds it, and
 * who may change a file (its owner and access list, by security identifier, so a localized group name changes
 * nothing). The decisions are pure functions over the tools' output; the tools are run from the system folder
 * (never found on PATH) with a deadline, node:child_process loaded only then (the hooks import this module). Nothing here reads `process.env` for a location a user could set.
 */
import { existsSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import { builtin } from '../builtin.js';

export const DEFAULT_PROGRAM_DATA = 'C:\\ProgramData';
const PROFILE_LIST = 'HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList';
const CURRENT_VERSION = 'HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion';
const TOOL_TIMEOUT_MS = 4_000;

/** The value `name` in the output of `reg query <key> /v <name>` (`    ProgramData    REG_EXPAND_SZ    %SystemDrive%\ProgramData`), or null. */
export function parseRegValue(output: string, name: string): string | null {
  for (const line of output.split(/\r?\n/)) {
    const m = /^\s+(\S.*?)\s{2,}(REG_SZ|REG_EXPAND_SZ)\s{2,}(.+?)\s*$/.exec(line) ?? /^\s+(\S.*?)\s+(REG_SZ|REG_EXPAND_SZ)\s+(.+?)\s*$/.exec(line);
    if (m && m[1]!.toLowerCase() === name.toLowerCase()) return m[3]!;
  }
  return null;
}

/**
 * The ProgramData folder from the registry's value, `%SystemDrive%` taken from the registry's SystemRoot (`C:\WINDOWS`
 * gives `C:`); any other variable, a relative path or no value: null (the caller falls back to C:\ProgramData).
 */
export function programDataFrom(value: string | null, systemRoot: string | null): string | null {
  if (!value) return null;
  const drive = systemRoot && /^[A-Za-z]:/.test(systemRoot) ? systemRoot.slice(0, 2) : null;
  const expanded = value.replace(/%SystemDrive%/gi, () => drive ?? '%');
  if (expanded.includes('%') || !/^[A-Za-z]:\\/.test(expanded)) return null;
  return win32.normalize(expanded).replace(/\\+$/, '');
}

export type RunTool = (tool: 'reg' | 'powershell', args: readonly string[]) => string | null;

/** Where the system tools are: the system folder, never PATH. `systemDir` for tests (recording stand-ins). */
export function systemToolRunner(options: { systemDir?: string; platform?: NodeJS.Platform } = {}): RunTool {
  const platform = options.platform ?? process.platform;
  const dir = options.systemDir ?? (existsSync('C:\\Windows\\System32') ? 'C:\\Windows\\System32' : win32.join(process.env.SystemRoot ?? 'C:\\Windows', 'System32'));
  // Off Windows (tests only) the stand-ins are plain files named reg and powershell in `systemDir`.
  const pathOf = (tool: 'reg' | 'powershell') => (platform !== 'win32' ? posix.join(dir, tool)
    : tool === 'reg' ? win32.join(dir, 'reg.exe') : win32.join(dir, 'WindowsPowerShell', 'v1.0', 'powershell.exe'));
  return (tool, args) => {
    const { spawnSync } = builtin<typeof import('node:child_process')>('node:child_process');
    const run = spawnSync(pathOf(tool), [...args], { encoding: 'utf8', timeout: TOOL_TIMEOUT_MS, windowsHide: true, stdio: ['ignore', 'pipe', 'ignore'] });
    return run.status === 0 && typeof run.stdout === 'string' ? run.stdout : null;
  };
}

/** The machine's ProgramData folder from the registry, else C:\ProgramData. Two `reg query` runs. */
export function programDataFolder(run: RunTool): string {
  const value = parseRegValue(run('reg', ['query', PROFILE_LIST, '/v', 'ProgramData']) ?? '', 'ProgramData');
  const root = value?.match(/%SystemDrive%/i) ? parseRegValue(run('reg', ['query', CURRENT_VERSION, '/v', 'SystemRoot']) ?? '', 'SystemRoot') : null;
  return programDataFrom(value, root) ?? DEFAULT_PROGRAM_DATA;
}

/** Who may change Windows files: SYSTEM, Administrators, TrustedInstaller. */
export const ADMIN_SIDS: ReadonlyMap<string, string> = new Map([
  ['S-1-5-18', 'SYSTEM'],
  ['S-1-5-32-544', 'Administrators'],
  ['S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464', 'TrustedInstaller'],
]);
/** FileSystemRights bits that change a file or folder: write/create, append, delete child, delete, change permissions, take ownership, generic all/write. */
const CHANGE_RIGHTS = 0x2 | 0x4 | 0x40 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000;
const INHERIT_ONLY = 'InheritOnly';

/** One line per fact, SIDs only: `path <p>`, `owner <sid>`, `ace <sid> <Allow|Deny> <rights> <propagation>`. */
export function aclScript(paths: readonly string[]): string {
  const list = paths.map((p) => `'${p.replace(/'/g, "''")}'`).join(',');
  return [
    "$ErrorActionPreference='Stop'",
    '$sid=[Security.Principal.SecurityIdentifier]',
    `foreach($p in @(${list})){`,
    ' $a=Get-Acl -LiteralPath $p',
    " 'path '+$p",
    " 'owner '+$a.GetOwner($sid).Value",
    " foreach($r in $a.GetAccessRules($true,$true,$sid)){ 'ace '+$r.IdentityReference.Value+' '+$r.AccessControlType+' '+[int64]$r.FileSystemRights+' '+($r.PropagationFlags -replace ', ','+') }",
    '}',
  ].join('\n');
}

export interface AclListing {
  path: string;
  owner: string | null;
  aces: Array<{ sid: string; allow: boolean; rights: number; inheritOnly: boolean }>;
}

/** The listing aclScript printed, per path. */
export function parseAclListing(output: string): AclListing[] {
  const out: AclListing[] = [];
  for (const line of output.split(/\r?\n/)) {
    const [kind, ...rest] = line.trim().split(' ');
    if (kind === 'path') out.push({ path: rest.join(' '), owner: null, aces: [] });
    const current = out[out.length - 1];
    if (!current) continue;
    if (kind === 'owner') current.owner = rest[0] ?? null;
    if (kind === 'ace' && rest.length >= 3) {
      const rights = Number(rest[2]);
      current.aces.push({ sid: rest[0]!, allow: rest[1] === 'Allow', rights: Number.isFinite(rights) ? rights : -1, inheritOnly: (rest[3] ?? '').includes(INHERIT_ONLY) });
    }
  }
  return out;
}

/** Why someone other than an administrator could change the listed file or folder, or null when nobody can. Pure. */
export function aclTrustProblem(listings: readonly AclListing[], expected: readonly string[]): string | null {
  for (const path of expected) {
    const listing = listings.find((l) => l.path.toLowerCase() === path.toLowerCase());
    if (!listing || listing.owner === null) return `the access list of ${path} cannot be read`;
    if (!ADMIN_SIDS.has(listing.owner)) return `${path} belongs to ${listing.owner}, not an administrator`;
    const writer = listing.aces.find((a) => a.allow && !a.inheritOnly && (a.rights < 0 || (a.rights & CHANGE_RIGHTS) !== 0) && !ADMIN_SIDS.has(a.sid));
    if (writer) return `${path} can be changed by ${writer.sid}${SID_NAMES[writer.sid] ? ` (${SID_NAMES[writer.sid]})` : ''}`;
  }
  return null;
}

const SID_NAMES: Record<string, string> = { 'S-1-1-0': 'Everyone', 'S-1-5-11': 'Authenticated Users', 'S-1-5-32-545': 'Users', 'S-1-3-0': 'CREATOR OWNER' };

/** aclTrustProblem for `paths` as PowerShell's Get-Acl reads them (one run for all). */
export function windowsTrustProblem(paths: readonly string[], run: RunTool): string | null {
  const script = Buffer.from(aclScript(paths), 'utf16le').toString('base64');
  const output = run('powershell', ['-NoProfile', '-NonInteractive', '-EncodedCommand', script]);
  if (output === null) return 'its access list cannot be read (PowerShell Get-Acl failed)';
  return aclTrustProblem(parseAclListing(output), paths);
}
