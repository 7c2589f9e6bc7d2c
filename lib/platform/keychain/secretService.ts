/**
 * Linux: the Secret Service (GNOME Keyring, KWallet, KeePassXC) through libsecret's `secret-tool`. `store` reads
 * the secret from standard input; `lookup` prints it; `clear` removes it. It needs a D-Bus session bus with a
 * Secret Service on it and an unlocked collection: a locked one makes the service ask for a password, which no one
 * sees from here, so the call is bounded and its failure named.
 */
import { existsSync } from 'node:fs';
import { findOnPath } from '../findExecutable.js';
import { complaint, runTool, type ToolResult } from './bounded.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainError, type Keychain, type SecretKey } from './types.js';

const attributes = (key: SecretKey) => ['service', key.service, 'server', key.server, 'account', key.account];

/** Why there is no session bus to reach, or null when one is named (or at libsecret's default place). */
export function sessionBusProblem(env: NodeJS.ProcessEnv): string | null {
  if (env.DBUS_SESSION_BUS_ADDRESS?.trim()) return null;
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  if (runtime && existsSync(`${runtime}/bus`)) return null;
  return 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)';
}

/** A failed call as a KeychainError: what the person can do about it. */
export function secretServiceFailure(result: ToolResult, timeoutMs = KEYCHAIN_TIMEOUT_MS): KeychainError {
  if (result.timedOut) return new KeychainError('timeout', `the Secret Service did not answer within ${timeoutMs / 1000} s (a locked keyring waiting for its password?)`);
  if (result.spawnError) return new KeychainError('unavailable', `secret-tool could not be started (${result.spawnError})`);
  const said = complaint(result);
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any/i.test(said)) return new KeychainError('unavailable', 'no Secret Service on this session bus');
  if (/autolaunch|session bus|DBUS_SESSION_BUS_ADDRESS|Could not connect/i.test(said)) return new KeychainError('unavailable', 'no D-Bus session bus');
  if (/locked/i.test(said)) return new KeychainError('locked', 'the keyring is locked');
  if (/does not exist|no such object/i.test(said)) return new KeychainError('locked', `the keyring has no usable collection (${said})`);
  return new KeychainError('failed', `secret-tool failed: ${said}`);
}

export function secretServiceKeychain(options: { env?: NodeJS.ProcessEnv; command?: string; timeoutMs?: number } = {}): Keychain {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const command = () => options.command ?? findOnPath('secret-tool', { env, platform: 'linux' });
  const run = async (args: string[], input?: string): Promise<ToolResult> => {
    const tool = command();
    if (!tool) throw new KeychainError('unavailable', 'secret-tool (libsecret-tools) is not installed');
    return runTool(tool, args, { input, env, timeoutMs });
  };
  return {
    name: 'Secret Service',
    unavailable() {
      if (!command()) return 'secret-tool (libsecret-tools) is not installed';
      return sessionBusProblem(env);
    },
    async put(key, secret, label) {
      const result = await run(['store', `--label=${label}`, ...attributes(key)], secret);
      if (result.code !== 0) throw secretServiceFailure(result, timeoutMs);
    },
    async get(key) {
      const result = await run(['lookup', ...attributes(key)]);
      // No entry: exit 1 and nothing said. (A locked collection answers the same way: the caller sees no secret.)
      if (result.code === 1 && !result.timedOut && !result.stderr.trim()) return null;
      if (result.code !== 0) throw secretServiceFailure(result, timeoutMs);
      return result.stdout.replace(/\r?\n$/, '') || null;
    },
    async delete(key) {
      const result = await run(['clear', ...attributes(key)]);
      if (result.code === 0) return true;
      if (result.code === 1 && !result.timedOut && !result.stderr.trim()) return false;
      throw secretServiceFailure(result, timeoutMs);
    },
    async forget(match) {
      // `clear` removes every item with these attributes, whatever the server.
      const result = await run(['clear', 'service', match.service, 'account', match.account]);
      if (result.code === 0 || (result.code === 1 && !result.timedOut && !result.stderr.trim())) return;
      throw secretServiceFailure(result, timeoutMs);
    },
  };
}
