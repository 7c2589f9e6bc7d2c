/**
 * Writes `agentstack-settings.json` through conf (atomic replace, JSON as people expect to edit it), pointed at that
 * exact file: `cwd` + `configName` + `fileExtension`. The file is 0600 from creation: we create it empty through our
 * own exclusive 0600 create before conf first writes, and conf's own temp file is opened with `configFileMode`
 * 0600 too. conf has no cross-process lock, so each change runs under ours. Only the config script loads this
 * module: conf brings ajv, which the hooks must not pay for (they read the file with settings/file.ts).
 */
import Conf from 'conf';
import { lstatSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { PluginError } from '../../platform/errors.js';
import { withLock } from '../../platform/fs/fileLock.js';
import { SECRET_FILE_MODE, createExclusive, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';
import { parseSettingsText, readSettingsFile } from './file.js';
import { settingSpec, type StoredKey } from './keys.js';

type StoredValue = string | boolean;

function openStore(path: string): Conf<Record<string, StoredValue>> {
  createExclusive(path, '{}\n', { mode: SECRET_FILE_MODE });
  const extension = extname(path);
  return new Conf<Record<string, StoredValue>>({
    cwd: dirname(path),
    configName: basename(path, extension),
    fileExtension: extension.replace(/^\./, ''),
    configFileMode: SECRET_FILE_MODE,
    deserialize: (text) => parseSettingsText(text) as Record<string, StoredValue>,
    accessPropertiesByDotNotation: false,
    serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
  });
}

function wrapIo(path: string, error: unknown): PluginError {
  if (error instanceof PluginError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name ?? 'error';
  return new PluginError('io', `Cannot write the settings file ${path} (${code}); check that the folder is writable.`, { cause: error });
}

/**
 * Refuses to rewrite a file it cannot read: the person's hand edits would be lost. A symlink is replaced by a
 * regular file (0600) holding what it pointed to, as mcp.json's writes do: the link's target, maybe outside the
 * Cursor dir, is never rewritten or chmod'ed (conf's atomic write would follow the link).
 */
function assertUsable(path: string): void {
  const read = readSettingsFile(path);
  if (read.broken) throw new PluginError('malformed_file', `${read.problems[0] ?? `${path} cannot be used`} Nothing was changed.`);
  if (!isSymlink(path)) return;
  const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.settings }) ?? '{}\n';
  writeFileAtomic(path, text, { mode: SECRET_FILE_MODE }); // replaces the link itself
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Stores `value` (already checked by the key's rule) under `key`. */
export async function setStoredSetting(path: string, lockPath: string, key: StoredKey, value: string): Promise<void> {
  const stored: StoredValue = settingSpec(key).stored === 'boolean' ? value === 'true' : value;
  try {
    await withLock(lockPath, () => {
      assertUsable(path);
      openStore(path).set(key, stored);
    });
  } catch (error) {
    throw wrapIo(path, error);
  }
}

/** Removes `key`; returns false when it was not set. */
export async function unsetStoredSetting(path: string, lockPath: string, key: StoredKey): Promise<boolean> {
  try {
    return await withLock(lockPath, () => {
      assertUsable(path);
      if (readSettingsFile(path).exists === false) return false;
      const store = openStore(path);
      if (!store.has(key)) return false;
      store.delete(key);
      return true;
    });
  } catch (error) {
    throw wrapIo(path, error);
  }
}
