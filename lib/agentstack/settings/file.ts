/**
 * Reads `agentstack-settings.json` for everyone (hooks included): one small file, one schema (SettingsFileSchema),
 * each value checked by its key's rule. A file that cannot be read or parsed, or a value that fails its rule, is
 * reported in `problems` and left out; it never stops the caller.
 */
import { quoteShort } from '../../platform/errors.js';
import { readTextIfExists } from '../../platform/fs/secureFile.js';
import { isObject } from '../../platform/text/isObject.js';
import { SettingsFileSchema } from '../../schemas/settings.js';
import { SETTING_KEYS, settingSpec, type StoredKey } from './keys.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export interface SettingsRead {
  path: string;
  exists: boolean;
  /** Valid values only, normalized by their rule. */
  values: Partial<Record<StoredKey, string>>;
  /** One line each: what was wrong and that it was ignored. */
  problems: string[];
  /** The keys whose value was there but refused (left out of `values`). */
  rejected: StoredKey[];
  /** The refused values as the file holds them (the managed file reads them its own way). */
  refused?: Partial<Record<StoredKey, unknown>>;
  /** True when the file as a whole could not be used (unreadable, not JSON, not an object). */
  broken: boolean;
}

const STORED = SETTING_KEYS.filter((k): k is StoredKey => k !== 'project');

/**
 * The settings file's JSON, read as people leave it: a leading BOM (Windows editors) is dropped, and an empty file
 * is an empty object. The one parse of the file, for the readers here and for conf's writes. Throws SyntaxError.
 */
export function parseSettingsText(text: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  return body.trim() ? JSON.parse(body) : {};
}

export function readSettingsFile(path: string): SettingsRead {
  const empty = { path, values: {}, problems: [] as string[], rejected: [] as StoredKey[] };
  let text: string | null;
  try {
    text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.settings });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { ...empty, exists: true, broken: true, problems: [`The settings file ${path} cannot be read (${code}); it was ignored.`] };
  }
  if (text === null) return { ...empty, exists: false, broken: false };
  let raw: unknown;
  try {
    raw = parseSettingsText(text);
  } catch {
    return { ...empty, exists: true, broken: true, problems: [`The settings file ${path} is not valid JSON; it was ignored. Fix it by hand, or delete it and set the values again.`] };
  }
  if (!isObject(raw)) return { ...empty, exists: true, broken: true, problems: [`The settings file ${path} is not a JSON object; it was ignored.`] };
  return { path, exists: true, broken: false, ...checkValues(raw, path) };
}

function checkValues(raw: Record<string, unknown>, path: string): Pick<SettingsRead, 'values' | 'problems' | 'rejected' | 'refused'> {
  const values: Partial<Record<StoredKey, string>> = {};
  const problems: string[] = [];
  const rejected: StoredKey[] = [];
  const refused: Partial<Record<StoredKey, unknown>> = {};
  const typed = SettingsFileSchema.safeParse(raw);
  const badType = new Set(typed.success ? [] : typed.error.issues.map((i) => String(i.path[0])));
  for (const key of STORED) {
    const value = raw[key];
    if (value === undefined) continue;
    const spec = settingSpec(key);
    if (badType.has(key)) {
      problems.push(`${key} in ${path} must be a JSON ${spec.stored}; it was ignored.`);
      rejected.push(key);
      refused[key] = value;
      continue;
    }
    try {
      values[key] = spec.parse(String(value), `${key} in ${path}`);
    } catch (error) {
      problems.push(`${quoteShort((error as Error).message, 240)}; it was ignored.`);
      rejected.push(key);
      refused[key] = value;
    }
  }
  return { values, problems, rejected, refused };
}
