import { renameSync } from 'node:fs';

/** Errors a rename on Windows gives while another process (antivirus, indexer, OneDrive, an editor) has the file open. */
const TRANSIENT_ON_WINDOWS = new Set(['EPERM', 'EBUSY', 'EACCES']);
/** About one second in all, then the error is the caller's. */
export const RENAME_BACKOFF_MS = [10, 20, 40, 80, 160, 300, 400];

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export interface RenameOptions {
  platform?: NodeJS.Platform;
  rename?: (from: string, to: string) => void;
  sleep?: (ms: number) => void;
}

/**
 * `renameSync`, retried on Windows for the errors another process holding `to` or `from` open causes there (Node's
 * rename is one MoveFileExW, with no retry of its own). Elsewhere a rename is tried once.
 */
export function renameWithRetry(from: string, to: string, options: RenameOptions = {}): void {
  const rename = options.rename ?? renameSync;
  const retry = (options.platform ?? process.platform) === 'win32';
  for (let attempt = 0; ; attempt += 1) {
    try {
      rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!retry || !TRANSIENT_ON_WINDOWS.has(code) || attempt >= RENAME_BACKOFF_MS.length) throw error;
      (options.sleep ?? sleepSync)(RENAME_BACKOFF_MS[attempt]!);
    }
  }
}
