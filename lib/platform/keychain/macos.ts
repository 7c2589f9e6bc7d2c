/**
 * macOS: the login keychain through `/usr/bin/security`. A secret is added by `security -i`, which reads its
 * commands from standard input, so the secret (hex-encoded, `-X`) never appears in any process's arguments; that
 * line is bounded to what the tool reads at once (a longer one is refused, never split into two commands);
 * `find-generic-password -w` prints it, `delete-generic-password` removes it (exit 44: no such item).
 */
import { complaint, runTool, type ToolResult } from './bounded.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainError, refuseBreaks, type Keychain, type SecretKey } from './types.js';

export const SECURITY = '/usr/bin/security';
const NOT_FOUND = 44;
/** At most this many entries of one folder are removed by one `forget` (each a run of the tool). */
const FORGET_ROUNDS = 16;

/**
 * What `security -i` takes of one line: it reads into a 4,096-byte buffer, so 4,095 bytes a read, and whatever of a
 * longer line is left becomes the next command. A line we write holds at most 4,094 bytes and its newline, so one
 * read takes it whole.
 */
export const SECURITY_LINE_BYTES = 4_094;

/**
 * One argument of `security -i`'s command line, double-quoted as its tokenizer reads it (a backslash takes the next
 * byte as it is). A control character (a newline or NUL would end the line or the string) is refused.
 */
function quoted(value: string, what: string): string {
  if (/[\x00-\x1f\x7f]/.test(value)) throw new KeychainError('refused', `the keychain entry's ${what} holds a control character, which \`security -i\` would read as the end of a command; it is not stored there`);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const who = (key: SecretKey) => {
  refuseBreaks({ service: key.service, server: key.server, account: key.account });
  return ['-s', `${key.service}:${key.server}`, '-a', key.account];
};

/**
 * The `security -i` input that adds (or updates, `-U`) the entry: the only place the secret goes (hex-encoded, so
 * it is one plain word). A line that would not fit in one of the tool's reads is refused (KeychainError `refused`),
 * never written: what the tool did not read would be run as another command.
 */
export function addCommand(key: SecretKey, secret: string, label: string): string {
  const names = `add-generic-password -U -s ${quoted(`${key.service}:${key.server}`, 'server')} -a ${quoted(key.account, 'account')} -l ${quoted(label, 'label')} -X `;
  const hex = Buffer.from(secret, 'utf8').toString('hex');
  const namesBytes = Buffer.byteLength(names, 'utf8');
  if (namesBytes + 2 > SECURITY_LINE_BYTES) {
    throw new KeychainError('refused', `the keychain entry's names (server and folder, ${namesBytes} bytes) are too long for \`security -i\`, which reads at most 4,095 bytes a line; it is not stored there`);
  }
  if (namesBytes + hex.length > SECURITY_LINE_BYTES) {
    const room = Math.floor((SECURITY_LINE_BYTES - namesBytes) / 2);
    throw new KeychainError('refused', `the refresh token (${hex.length / 2} bytes) is too long for the macOS Keychain through \`security -i\`, which reads at most 4,095 bytes a line and takes the token hex-encoded (room for ${room} bytes here); keep it in the file instead (credential-store auto or file)`);
  }
  return `${names}${hex}\n`;
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
    async forget(match) {
      // `delete-generic-password` removes the first item that matches: the account and our label, until none is left.
      refuseBreaks({ account: match.account, label: match.label });
      for (let round = 0; round < FORGET_ROUNDS; round++) {
        const result = await run(['delete-generic-password', '-a', match.account, '-l', match.label]);
        if (result.code === NOT_FOUND) return;
        if (result.code !== 0) throw failure(result, timeoutMs);
      }
    },
  };
}
