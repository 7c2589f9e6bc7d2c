/**
 * The command line of an enterprise hook: the absolute node and the copy's script, each in double quotes. Cursor
 * hands the command to a shell (sh on Linux and macOS, cmd or PowerShell on Windows), so nothing goes in that could
 * mean something there: a path with a character outside a plain set (quotes, `$`, `%`, backquotes, backslashes on
 * POSIX, control characters, anything beyond ASCII) is refused rather than escaped for a shell we cannot name. Pure.
 */
import { posix, win32 } from 'node:path';

const PLAIN = /^[A-Za-z0-9 _\-.,/:+@()~=]+$/;
const PLAIN_WINDOWS = /^[A-Za-z0-9 _\-.,/:+@()~=\\]+$/;

/** Why a path cannot go into a hook's command line, or null when it can. */
export function unsafePath(path: string, platform: NodeJS.Platform = process.platform): string | null {
  const abs = platform === 'win32' ? win32.isAbsolute(path) : posix.isAbsolute(path);
  if (!abs) return `${JSON.stringify(path.slice(0, 120))} is not an absolute path`;
  if (!(platform === 'win32' ? PLAIN_WINDOWS : PLAIN).test(path)) {
    return `${JSON.stringify(path.slice(0, 120))} holds a character a shell could read as something else (only letters, digits, spaces and _ - . , / : + @ ( ) ~ = are passed${platform === 'win32' ? ', and \\' : ''})`;
  }
  return null;
}

/** The command: `"<node>" "<script>"`; call only with paths unsafePath accepts. */
export function hookCommand(node: string, script: string): string {
  return `"${node}" "${script}"`;
}
