/** This machine's keychain: the backend for the platform, or null where there is none we know. */
import { macKeychain } from './macos.js';
import { secretServiceKeychain } from './secretService.js';
import type { Keychain } from './types.js';
import { windowsCredentialManager } from './windows.js';

export interface KeychainOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** The tool to run instead of the platform's (tests: a recording stand-in). */
  command?: string;
  timeoutMs?: number;
}

export function systemKeychain(options: KeychainOptions = {}): Keychain | null {
  const platform = options.platform ?? process.platform;
  if (platform === 'darwin') return macKeychain(options);
  if (platform === 'win32') return windowsCredentialManager(options);
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') return secretServiceKeychain(options);
  return null;
}
