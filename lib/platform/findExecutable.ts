import { statSync } from 'node:fs';
import { posix, win32 } from 'node:path';

export interface FindOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  isFile?: (path: string) => boolean;
}

const isFileOnDisk = (path: string) => { try { return statSync(path).isFile(); } catch { return false; } };

/**
 * The file a shell would run for `command` from `env`'s PATH (Windows: `Path`/`PATH` with `;` and each PATHEXT
 * extension), or null. What `which node` / `where node` print first.
 */
export function findOnPath(command: string, options: FindOptions = {}): string | null {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const isFile = options.isFile ?? isFileOnDisk;
  const path = platform === 'win32' ? win32 : posix;
  const pathValue = platform === 'win32' ? env.Path ?? env.PATH ?? env.path : env.PATH;
  const exts = platform === 'win32' ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  for (const dir of (pathValue ?? '').split(platform === 'win32' ? ';' : ':')) {
    const folder = dir.trim().replace(/^"(.*)"$/, '$1');
    if (!folder || !path.isAbsolute(folder)) continue;
    for (const ext of exts) {
      const candidate = path.join(folder, command + ext);
      if (isFile(candidate)) return candidate;
    }
  }
  return null;
}
