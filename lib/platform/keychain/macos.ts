/**
 * macOS: the login keychain through `/usr/bin/security`. A secret is added by `security -i`, which reads its
 * commands from standard input, so the secret (hex-encoded, `-X`) never appears in any process's arguments;
 * `find-generic-password -w` prints it, `delete-generic-password` removes it (exit 44: no such item).
 */
import { complaint, runTool, type ToolResult } from './bounded.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainError, type Keychain, type SecretKey } from './types.js';

export const SECURITY = '/usr/bin/security';
const NOT_FOUND = 44;

/** One argument of `security -i`'s command line, double-quoted. */
function quoted(value: string): string {
  if (/[\x00-\x1f\x7f]/.test(value)) throw new KeychainError('failed', 'a keychain name holds a control character');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const who = (key: SecretKey) => ['-s', `${key.service}:${key.server}`, '-a', key.account];

/** The `security -i` input that adds (or updates, `-U`) the entry: the only place the secret goes. */
export function addCommand(key: SecretKey, secret: string, label: string): string {
  const hex = Buffer.from(secret, 'utf8').toString('hex');
  return `add-generic-password -U -s ${quoted(`${key.service}:${key.server}`)} -a ${quoted(key.account)} -l ${quoted(label)} -X ${hex}\n`;
}

function failure(result: ToolResult, timeoutMs: number): KeychainError {
  if (result.timedOut) return new KeychainError('timeout', `the macOS Keychain did not answer within ${timeoutMs / 1000} s (a locked keychain waiting for its password?)`);
  if (result.spawnError) return new KeychainError('unavailable', `${SECURITY} could not be started (${result.spawnError})`);
  // `security -i` may echo the command it failed on: never let the hex-encoded secret into a message.
  const said = complaint(result).replace(/[0-9a-f]{16,}/gi, '…');
  if (/interaction is not allowed|locked/i.test(said) || result.code === 36 || result.code === 51) return new KeychainError('locked', 'the login keychain is locked');
  return new KeychainError('failed', `security failed: ${said}`);
}

export function macKeychain(options: { env?: NodeJS.ProcessEnv; command?: string; timeoutMs?: number } = {}): Keychain {
  const command = options.command ?? SECURITY;
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const run = (args: string[], input?: string) => runTool(command, args, { input, env: options.env, timeoutMs });
  return {
    name: 'macOS Keychain',
    unavailable: () => null,
    async put(key, secret, label) {
      const result = await run(['-i'], addCommand(key, secret, label));
      // `security -i` goes on after a failed command: its complaint on stderr is the failure.
      if (result.code !== 0 || result.timedOut || result.stderr.trim()) throw failure(result, timeoutMs);
    },
    async get(key) {
      const result = await run(['find-generic-password', ...who(key), '-w']);
      if (result.code === NOT_FOUND) return null;
      if (result.code !== 0) throw failure(result, timeoutMs);
      return result.stdout.replace(/\r?\n$/, '') || null;
    },
    async delete(key) {
      const result = await run(['delete-generic-password', ...who(key)]);
      if (result.code === NOT_FOUND) return false;
      if (result.code !== 0) throw failure(result, timeoutMs);
      return true;
    },
  };
}
