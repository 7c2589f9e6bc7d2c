import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh temporary folder, removed by the returned cleanup. Tests never touch the real ~/.cursor. */
export function tempDir(prefix = 'agentstack-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  // A hook's detached write (its code cache, a journal record) may still land while the folder goes: rmSync then
  // fails with ENOTEMPTY unless it retries.
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}
