import { homedir } from 'node:os';

/**
 * `path` with the home folder shown as `~`, for messages. Only a whole leading path segment matches: with home
 * `/home/al`, `/home/alice` stays as it is. Both separators count (Windows paths), and on Windows and macOS the
 * comparison ignores case, as their file systems usually do.
 */
export function tilde(path: string, options: { home?: string; platform?: NodeJS.Platform } = {}): string {
  const home = (options.home ?? homedir()).replace(/[\\/]+$/, '');
  if (!home) return path;
  const platform = options.platform ?? process.platform;
  const fold = platform === 'win32' || platform === 'darwin' ? (s: string) => s.toLowerCase() : (s: string) => s;
  if (fold(path.slice(0, home.length)) !== fold(home)) return path;
  const rest = path.slice(home.length);
  return rest === '' || rest[0] === '/' || rest[0] === '\\' ? `~${rest}` : path;
}
