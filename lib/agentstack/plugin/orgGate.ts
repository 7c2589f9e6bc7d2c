/**
 * The organization's gate: a copy of the pre-MCP and after-MCP hooks that an administrator installs in a folder only
 * administrators can write (`managed.mjs install-hooks`), run by Cursor from its enterprise hooks file, with
 * `failClosed` on the pre-MCP one. Its places are fixed per platform (no variable or setting moves them). Small, with
 * no import beyond node built-ins: the hooks' second stage asks `orgGateInPlace` (one stat) for AgentStack's calls.
 *
 * One gate per call: where the organization's gate is in place, the plugin's own hooks leave AgentStack's calls to it
 * (no second check, journal record, ask or notice), and the copy does all of it; which of the two Cursor runs first
 * then changes nothing. The marker (`gate.json`, written last by install and removed first by remove) is what says it
 * is in place; a marker another user could have written, or older than the hooks file, is not one.
 */
import { statSync } from 'node:fs';
import { posix, resolve, win32 } from 'node:path';

/** The folder of the organization's copy on each platform. */
export function orgGateDir(platform: NodeJS.Platform = process.platform, programData = 'C:\\ProgramData'): string {
  if (platform === 'win32') return win32.join(programData, 'AgentStack', 'cursor-gate');
  if (platform === 'darwin') return '/Library/Application Support/AgentStack/cursor-gate';
  return '/usr/local/lib/agentstack-cursor';
}

/** Cursor's enterprise hooks file (MDM-managed), which hooks from every other source cannot outrank. */
export function enterpriseHooksPath(platform: NodeJS.Platform = process.platform, programData = 'C:\\ProgramData'): string {
  if (platform === 'win32') return win32.join(programData, 'Cursor', 'hooks.json');
  if (platform === 'darwin') return '/Library/Application Support/Cursor/hooks.json';
  return '/etc/cursor/hooks.json';
}

const pathOf = (platform: NodeJS.Platform) => (platform === 'win32' ? win32 : posix);

/** Where the copy's hook scripts are (the same layout as the plugin's `hooks/scripts`). */
export function orgScriptsDir(platform: NodeJS.Platform = process.platform, programData?: string): string {
  return pathOf(platform).join(orgGateDir(platform, programData), 'hooks', 'scripts');
}

/** The marker the plugin's hooks stat: the copy's manifest (its version, when and with which node it was installed). */
export function orgMarkerPath(platform: NodeJS.Platform = process.platform, programData?: string): string {
  return pathOf(platform).join(orgGateDir(platform, programData), 'gate.json');
}

/** True when this hook runs from the organization's copy rather than from the plugin. */
export function runsAsOrgGate(scriptDir: string): boolean {
  return resolve(scriptDir) === resolve(orgScriptsDir());
}

/**
 * Whether the organization's gate is in place: its marker is a regular file only root could have written, and the
 * enterprise hooks file has not changed since (install writes the marker after the file; a file edited later, say
 * with the gate's entries taken out by hand, counts as not in place until install-hooks runs again, so the plugin's
 * hooks check too rather than no one). Two stats. Never on Windows, where a stat cannot tell who may write a file
 * under ProgramData (the plugin's hooks then check too: the same answers, at worst asked twice).
 */
export function orgGateInPlace(marker = orgMarkerPath(), platform: NodeJS.Platform = process.platform, hooksFile = enterpriseHooksPath(platform)): boolean {
  try {
    const st = statSync(marker);
    if (platform === 'win32' || !st.isFile() || st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    return statSync(hooksFile).mtimeMs <= st.mtimeMs;
  } catch {
    return false;
  }
}
