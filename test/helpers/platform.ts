/**
 * What differs on Windows for the tests, in one place, so the suite is ready for a Windows runner: the meaning of a
 * file mode, the variables a child Node process needs, and why a Linux-only case is skipped there.
 */
export const IS_WINDOWS = process.platform === 'win32';

/**
 * The mode bits a file created 0600 shows. Windows keeps no mode bits: Node reports 0o666 for any writable file
 * (0o444 read-only), and the user profile's ACLs, not the mode, keep other users out.
 */
export const PRIVATE_MODE = IS_WINDOWS ? 0o666 : 0o600;
/** The mode bits a file created 0644 shows (see PRIVATE_MODE). */
export const SHARED_MODE = IS_WINDOWS ? 0o666 : 0o644;

/** Reasons for `it.skipIf(IS_WINDOWS)`, named once. */
export const WINDOWS_SKIPS = {
  symlink: 'creating symlinks on Windows needs Developer Mode or an elevated process',
  signal: 'Windows has no SIGINT for a child process: kill() ends it without running its handler',
  posixShell: 'a fake opener on PATH is a POSIX shell script; Windows opens links through its own shell',
  chown: 'chown and POSIX modes 0400/0500 do not exist on Windows',
} as const;

/**
 * The environment every spawned Node child gets before the test's own variables: PATH, plus on Windows the variables
 * without which Node's crypto, DNS and temp files fail there (SystemRoot above all). Not USERPROFILE or HOME: a test
 * chooses its own home, never the real one.
 */
export function baseChildEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' };
  // The machine's own keychain is never used by a test: macOS and Windows have one without a session bus to forget.
  if (process.platform === 'darwin' || IS_WINDOWS) env.AGENTSTACK_CREDENTIAL_STORE = 'file';
  if (IS_WINDOWS) {
    for (const name of ['SystemRoot', 'SystemDrive', 'windir', 'TEMP', 'TMP', 'PATHEXT', 'ComSpec', 'APPDATA', 'LOCALAPPDATA']) {
      if (process.env[name] !== undefined) env[name] = process.env[name];
    }
  }
  return env;
}
