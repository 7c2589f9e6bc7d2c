/** A reference core on a free loopback port and fresh Cursor dirs in one temporary folder, for a test file. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from './repo.js';

export interface CoreFixture {
  readonly core: RunningCore;
  readonly tmp: ReturnType<typeof tempDir>;
  /** A new, empty Cursor dir inside the temporary folder. */
  cursorDir(): string;
}

/** Starts the core before the file's tests and stops it (and removes the folder) after them. */
export function useCoreAndCursorDirs(prefix: string): CoreFixture {
  let core: RunningCore | undefined;
  let tmp: ReturnType<typeof tempDir> | undefined;
  let n = 0;
  beforeAll(async () => {
    core = await startCore({ port: 0, interval: 1 });
    tmp = tempDir(prefix);
  });
  afterAll(async () => {
    await core?.close();
    tmp?.cleanup();
  });
  return {
    get core() { return core!; },
    get tmp() { return tmp!; },
    cursorDir() {
      const dir = join(tmp!.path, `c${n++}`);
      mkdirSync(dir);
      return dir;
    },
  };
}
