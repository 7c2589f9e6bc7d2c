/**
 * What is in effect, key by key: the organization's managed file (managed.ts) first, then the environment variable
 * when set, else the person's settings file, else the default (like `git config --show-origin`). For the per-action
 * rules the managed file only adds: the stricter `policy` of the two, and the union of `ask-actions` and
 * `deny-actions`. `applySettings` returns the environment the rest of the plugin reads, with each value
 * from the settings file standing in for its unset variable, so a setting behaves exactly as its variable does; and
 * the proxy options the HTTP layer must be given (undici would read the process environment its own way).
 */
import { quoteShort } from '../../platform/errors.js';
import { readProjectPin } from '../auth/projectPin.js';
import { cursorPaths } from '../server/paths.js';
import { readSettingsFile, type SettingsRead } from './file.js';
import { SETTING_KEYS, envValueOf, settingSpec, type SettingKey, type StoredKey } from './keys.js';
import { RULE_KEYS, readManagedSettings, type ManagedOptions, type ManagedRead } from './managed.js';
import { ruleEntries, type PolicyPreset } from '../policy/rules.js';

const STRICTNESS: Record<PolicyPreset, number> = { default: 0, 'confirm-writes': 1, readonly: 2 };

/** The row of a key the managed file sets: its value alone, or for a rule, combined with the person's. */
function managedRow(key: StoredKey, value: string, managed: ManagedRead, personal: SettingRow): SettingRow {
  const row: SettingRow = { key, value: settingSpec(key).show(value), origin: 'managed', source: managed.path };
  const strict = managed.strict?.[key];
  if (strict !== undefined) row.problem = `the value of ${key} in the managed settings file ${managed.path} is not valid; ${strict}`;
  if (!RULE_KEYS.includes(key)) return row;
  if (personal.origin !== 'default') row.personal = personal;
  if (key === 'policy') {
    const theirs = (personal.value ?? 'default') as PolicyPreset;
    if ((STRICTNESS[theirs] ?? 0) > (STRICTNESS[value as PolicyPreset] ?? 0)) row.value = theirs;
  } else {
    row.value = [...new Set([...ruleEntries(value), ...(personal.problem ? [] : ruleEntries(personal.value))])].join(',');
  }
  return row;
}

export type SettingOrigin = 'managed' | 'env' | 'settings' | 'default';

export interface SettingRow {
  key: SettingKey;
  /** The effective value (a proxy password masked), or null when none is set and there is no default. */
  value: string | null;
  origin: SettingOrigin;
  /** The environment variable or the file the value comes from; null for a default. */
  source: string | null;
  /** What is wrong with the value in effect, when something is. */
  problem?: string;
  /** For a rule the managed file sets: the person's own row, which it adds to (policy: the stricter wins). */
  personal?: SettingRow;
}

export interface ProxyOptions {
  httpsProxy?: string;
  noProxy?: string;
}

/**
 * The settings in effect, each value with its origin (managed, environment, settings file, default): the one typed
 * object the domain is handed. A view tells a value's origin from here, never from an environment, where a value
 * from the settings file looks like its variable.
 */
export interface EffectiveSettings {
  /** Give these to the HTTP layer (platform/net/http.ts setProxyOptions): the proxy values in effect, as shown. */
  proxy: ProxyOptions;
  file: SettingsRead;
  /** The organization's managed file as read (absent, broken, untrusted, or its keys). */
  managed: ManagedRead;
  rows: SettingRow[];
  /** Lines to show a person: a broken settings file, a value that was ignored. */
  problems: string[];
}

export interface AppliedSettings extends EffectiveSettings {
  /** The environment with the settings filled in; pass it wherever `process.env` was passed. */
  env: NodeJS.ProcessEnv;
}

/** The row of `key` in effect (every stored key has one). */
export function settingOf(settings: Pick<EffectiveSettings, 'rows'>, key: StoredKey): SettingRow {
  return settings.rows.find((r) => r.key === key) ?? { key, value: settingSpec(key).default, origin: 'default', source: null };
}

function rowFor(key: StoredKey, env: NodeJS.ProcessEnv, file: SettingsRead): SettingRow {
  const spec = settingSpec(key);
  const fromEnv = envValueOf(key, env);
  if (fromEnv) {
    const value = spec.fromEnv(fromEnv.raw);
    const row: SettingRow = { key, value: spec.show(value.trim()), origin: 'env', source: fromEnv.name };
    try { spec.parse(value, fromEnv.name); } catch (error) { row.problem = quoteShort((error as Error).message, 240); }
    return row;
  }
  const stored = file.values[key];
  if (stored !== undefined) return { key, value: spec.show(stored), origin: 'settings', source: file.path };
  return { key, value: spec.default, origin: 'default', source: null };
}

/**
 * Reads the settings files once and works out what is in effect. Never throws for a bad file or value. `managed`:
 * the managed file as already read, or where to read it (tests); the platform's fixed path otherwise.
 */
export function applySettings(env: NodeJS.ProcessEnv, path = cursorPaths(env).settings, options: { managed?: ManagedRead | ManagedOptions } = {}): AppliedSettings {
  const file = readSettingsFile(path);
  const managed = options.managed && 'keys' in options.managed ? options.managed : readManagedSettings(options.managed);
  const rows: SettingRow[] = [];
  const merged: NodeJS.ProcessEnv = { ...env };
  const proxy: ProxyOptions = {};
  for (const key of SETTING_KEYS) {
    if (key === 'project') continue;
    const personal = rowFor(key, env, file);
    const fromManaged = managed.keys.includes(key) ? managed.values[key] : undefined;
    const row = fromManaged === undefined ? personal : managedRow(key, fromManaged, managed, personal);
    rows.push(row);
    const stored = file.values[key];
    // undici reads `no_proxy ?? NO_PROXY` itself (an empty one wins there): it is given the value shown instead.
    const inEffect = fromManaged ?? (row.origin === 'env' ? envValueOf(key, env)?.raw : stored);
    if (key === 'https-proxy' && inEffect) proxy.httpsProxy = inEffect;
    if (key === 'no-proxy' && inEffect) proxy.noProxy = inEffect;
    if (fromManaged !== undefined && !RULE_KEYS.includes(key)) {
      // The organization's value wins over the person's variable too.
      for (const name of settingSpec(key).env) delete merged[name];
      Object.assign(merged, settingSpec(key).toEnv(fromManaged));
    } else if (personal.origin === 'settings' && stored !== undefined) Object.assign(merged, settingSpec(key).toEnv(stored));
  }
  const problems = [...(managed.broken ? managed.problems.map((p) => p.replace('The settings file', 'The managed settings file').replace('it was ignored', 'every AgentStack call asks until it is fixed')) : []),
    ...(managed.distrust ? [`The managed settings file ${managed.path} can be changed by others (${managed.distrust}): only its rules apply.`] : []), ...file.problems];
  return { env: merged, proxy, file, managed, rows, problems };
}

/** The `project` row: the pin from AGENTSTACK_PROJECT_ID or the pin file (the `project` setting is that file). */
export function projectRow(env: NodeJS.ProcessEnv, pinPath = cursorPaths(env).project): SettingRow {
  try {
    const pin = readProjectPin(env, pinPath);
    if (pin.ignored) return { key: 'project', value: null, origin: 'default', source: null, problem: pin.ignored };
    if (pin.source === 'env') return { key: 'project', value: String(pin.projectId), origin: 'env', source: 'AGENTSTACK_PROJECT_ID' };
    if (pin.source === 'file') return { key: 'project', value: String(pin.projectId), origin: 'settings', source: pinPath };
    return { key: 'project', value: null, origin: 'default', source: null };
  } catch (error) {
    const raw = env.AGENTSTACK_PROJECT_ID?.trim() ?? '';
    return { key: 'project', value: quoteShort(raw, 40), origin: 'env', source: 'AGENTSTACK_PROJECT_ID', problem: quoteShort((error as Error).message, 240) };
  }
}

/** Every key in the documented order, the project pin included (for `config list` and diagnose). */
export function settingsTable(env: NodeJS.ProcessEnv, options: { managed?: ManagedRead | ManagedOptions; applied?: EffectiveSettings } = {}): { rows: SettingRow[]; file: SettingsRead; managed: ManagedRead; problems: string[] } {
  const applied = options.applied ?? applySettings(env, undefined, options);
  const rows = SETTING_KEYS.map((key) => (key === 'project' ? projectRow(env) : applied.rows.find((r) => r.key === key)!));
  const problems = [...applied.problems, ...rows.flatMap((r) => (r.problem ? [r.problem] : []))];
  return { rows, file: applied.file, managed: applied.managed, problems };
}
