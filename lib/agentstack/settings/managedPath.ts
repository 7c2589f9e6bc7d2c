/**
 * Where the organization's managed settings file is: fixed per platform, moved by no environment variable or
 * setting. On Windows it is in the ProgramData folder the registry names (managed.ts reads it there, with
 * platform/windows/systemInfo.ts); the hooks' fast paths stamp the usual C:\ProgramData without running a tool. Its
 * own module, so the fast paths can stat it without loading the settings code.
 */
import { dirname, posix, win32 } from 'node:path';
import { stampOf, type Stamp } from '../../platform/fs/fileStamps.js';

/** Where the managed file is on each platform. */
export function managedSettingsPath(platform: NodeJS.Platform = process.platform, programData = 'C:\\ProgramData'): string {
  if (platform === 'win32') return win32.join(programData, 'AgentStack', 'managed-settings.json');
  if (platform === 'darwin') return posix.join('/Library/Application Support/AgentStack', 'managed-settings.json');
  return '/etc/agentstack/managed-settings.json';
}

/**
 * The managed file's folder and file stamps, for the hooks' compiled gates: a change of either (a new file, a
 * rewrite, a chmod) makes the gates stale. One `stat` when the folder does not exist, the usual case.
 */
export function managedStamps(path = managedSettingsPath()): Array<Stamp | undefined> {
  const folder = stampOf(dirname(path));
  return folder === null ? [null, null] : [folder, stampOf(path)];
}
