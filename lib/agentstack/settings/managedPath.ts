/**
 * Where the organization's managed settings file is: fixed per platform, moved by no environment variable or
 * setting. Its own module, so the hooks' fast paths can stat it without loading the settings code.
 */
import { dirname, posix, win32 } from 'node:path';
import { stampOf, type Stamp } from '../../platform/fs/fileStamps.js';

/** Where the managed file is on each platform. */
export function managedSettingsPath(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'win32') return win32.join(env.ProgramData || env.ALLUSERSPROFILE || 'C:\\ProgramData', 'AgentStack', 'managed-settings.json');
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
