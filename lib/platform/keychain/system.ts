/** This machine's keychain: the backend for the platform, or null where there is none we know. */
import { sessionBus } from '../dbus/address.js';
import { macKeychain } from './macos.js';
import { secretServiceKeychain } from './secretService.js';
import { secretServiceBusKeychain } from './secretServiceBus.js';
import type { Keychain } from './types.js';
import { windowsCredentialManager } from './windows.js';

export interface KeychainOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** The tool to run instead of the platform's (tests: a recording stand-in). */
  command?: string;
  timeoutMs?: number;
}

/**
 * Linux and the BSDs: the Secret Service over the session bus directly where its address is a Unix socket (or there
 * is none: that backend says so); `secret-tool` only for an address spoken by libsecret alone (tcp:, launchd:, ...).
 */
function secretServiceFor(options: KeychainOptions, platform: NodeJS.Platform): Keychain {
  const env = options.env ?? process.env;
  const bus = sessionBus(env, platform);
  if (options.command === undefined && (bus.sockets.length > 0 || bus.address === null)) return secretServiceBusKeychain({ env, sockets: bus.sockets, guids: bus.guids, timeoutMs: options.timeoutMs });
  return secretServiceKeychain(options);
}

export function systemKeychain(options: KeychainOptions = {}): Keychain | null {
  const platform = options.platform ?? process.platform;
  if (platform === 'darwin') return macKeychain(options);
  if (platform === 'win32') return windowsCredentialManager(options);
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') return secretServiceFor(options, platform);
  return null;
}
