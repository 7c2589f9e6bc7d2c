/**
 * The plugin's settings: one row per key, naming the environment variables that set it, the rule a value must pass
 * (the same one the environment variable passes), its default, and the environment it stands for when it comes from
 * the settings file. Pure and small: the hooks import it.
 */
import { envFlag, readEnv } from '../../platform/env.js';
import { PluginError } from '../../platform/errors.js';
import { maskUrlCredentials, parseNoProxy, parseProxyUrl } from '../../platform/net/proxyUrl.js';
import { DEFAULT_BASE_URL, parseBaseUrl } from '../server/baseUrl.js';
import { DEFAULT_SCOPE_PRESET, SCOPE_PRESETS, isScopePreset, type ScopePreset } from '../auth/scopes.js';
import { parsePinArgument } from '../auth/projectPin.js';
import { DEFAULT_POLICY, parsePolicyPreset, parseRuleList } from '../policy/rules.js';
import { SETTING_ENV, settingFromEnv } from './variables.js';

export const SETTING_KEYS = ['base-url', 'auto-login', 'scope-preset', 'project', 'https-proxy', 'no-proxy', 'oauth-client-id', 'policy', 'ask-actions', 'deny-actions', 'debug', 'journal', 'credential-store'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];
/** Every key but `project` lives in the settings file; `project` is the `agentstack-project` pin file. */
export type StoredKey = Exclude<SettingKey, 'project'>;

export const DEFAULT_CLIENT_ID = 'cursor-plugin';
/** The variable that picks the scope preset when `--scope-preset` is not given. */
export const SCOPE_PRESET_ENV = SETTING_ENV['scope-preset'][0];
/** The variable that turns the activity journal off (`off`) or on (`on`). */
export const JOURNAL_ENV = SETTING_ENV.journal[0];
/** Where the refresh token is kept: `auto` (the system keychain where it works, else the file), `keychain`, `file`. */
export const CREDENTIAL_STORE_ENV = SETTING_ENV['credential-store'][0];
export const CREDENTIAL_STORES = ['auto', 'keychain', 'file'] as const;
/** The variable that turns automatic sign-in off when set to 1. */
export const AUTO_LOGIN_ENV = SETTING_ENV['auto-login'][0];

export interface SettingSpec {
  key: SettingKey;
  /** The environment variables that set it, in the order they are read; the first one set wins. */
  env: readonly string[];
  /** Checks a value as a person types it (or the file holds it) and returns it normalized; throws `invalid_config`. */
  parse(value: string, source: string): string;
  /** What a value of the environment variable means as a setting (auto-login's variable says the opposite). */
  fromEnv(raw: string): string;
  /** The environment a value from the settings file stands for. */
  toEnv(value: string): Record<string, string>;
  /** How the value is shown (a proxy's password is masked). */
  show(value: string): string;
  default: string | null;
  /** `boolean` keys are stored as JSON true/false. */
  stored: 'string' | 'boolean';
}

const same = (value: string) => value;

function parseBoolean(value: string, source: string): string {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === 'false') return v;
  throw new PluginError('invalid_config', `${source} must be true or false (got ${JSON.stringify(value.slice(0, 40))})`);
}

function parseScopePreset(value: string, source: string): string {
  const v = value.trim();
  if (isScopePreset(v)) return v;
  throw new PluginError('invalid_config', `${source} must be one of ${Object.keys(SCOPE_PRESETS).join(', ')} (got ${JSON.stringify(value.slice(0, 40))})`);
}

/** An OAuth client_id as RFC 6749 allows it (visible ASCII), bounded. */
function parseClientId(value: string, source: string): string {
  const v = value.trim();
  if (/^[\x21-\x7e]{1,200}$/.test(v)) return v;
  throw new PluginError('invalid_config', `${source} must be 1 to 200 visible ASCII characters, no spaces`);
}

function parseDebug(value: string, source: string): string {
  const v = value.trim().toLowerCase();
  if (v === 'api' || v === 'off') return v;
  throw new PluginError('invalid_config', `${source} must be api or off (got ${JSON.stringify(value.slice(0, 40))})`);
}

function parseOnOff(value: string, source: string): string {
  const v = value.trim().toLowerCase();
  if (v === 'on' || v === 'off') return v;
  throw new PluginError('invalid_config', `${source} must be on or off (got ${JSON.stringify(value.slice(0, 40))})`);
}

function parseCredentialStore(value: string, source: string): string {
  const v = value.trim().toLowerCase();
  if ((CREDENTIAL_STORES as readonly string[]).includes(v)) return v;
  throw new PluginError('invalid_config', `${source} must be auto, keychain or file (got ${JSON.stringify(value.slice(0, 40))})`);
}

function parseProject(value: string, source: string): string {
  const id = parsePinArgument(value, source);
  if (id === null) throw new PluginError('invalid_config', `${source}: to remove the pin, unset the key`);
  return String(id);
}

const SPECS: Record<SettingKey, SettingSpec> = {
  'base-url': {
    key: 'base-url', env: SETTING_ENV['base-url'], parse: parseBaseUrl, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ AGENTSTACK_BASE_URL: v }), default: DEFAULT_BASE_URL,
  },
  'auto-login': {
    key: 'auto-login', env: SETTING_ENV['auto-login'], parse: parseBoolean, show: same, stored: 'boolean',
    fromEnv: (raw) => (envFlag({ [AUTO_LOGIN_ENV]: raw }, AUTO_LOGIN_ENV) ? 'false' : 'true'),
    toEnv: (v): Record<string, string> => (v === 'false' ? { [AUTO_LOGIN_ENV]: '1' } : {}), default: 'true',
  },
  'scope-preset': {
    key: 'scope-preset', env: SETTING_ENV['scope-preset'], parse: parseScopePreset, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ [SCOPE_PRESET_ENV]: v }), default: DEFAULT_SCOPE_PRESET,
  },
  project: {
    key: 'project', env: SETTING_ENV['project'], parse: parseProject, fromEnv: same, show: same, stored: 'string',
    toEnv: () => ({}), default: null,
  },
  'https-proxy': {
    key: 'https-proxy', env: SETTING_ENV['https-proxy'], parse: parseProxyUrl, fromEnv: same, show: maskUrlCredentials, stored: 'string',
    toEnv: (v) => ({ HTTPS_PROXY: v }), default: null,
  },
  'no-proxy': {
    key: 'no-proxy', env: SETTING_ENV['no-proxy'], parse: parseNoProxy, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ NO_PROXY: v }), default: null,
  },
  'oauth-client-id': {
    key: 'oauth-client-id', env: SETTING_ENV['oauth-client-id'], parse: parseClientId, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ AGENTSTACK_OAUTH_CLIENT_ID: v }), default: DEFAULT_CLIENT_ID,
  },
  // The per-action rules the pre-MCP hook applies (policy/rules.ts).
  policy: {
    key: 'policy', env: SETTING_ENV['policy'], parse: parsePolicyPreset, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ [SETTING_ENV.policy[0]]: v }), default: DEFAULT_POLICY,
  },
  'ask-actions': {
    key: 'ask-actions', env: SETTING_ENV['ask-actions'], parse: parseRuleList, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ [SETTING_ENV['ask-actions'][0]]: v }), default: null,
  },
  'deny-actions': {
    key: 'deny-actions', env: SETTING_ENV['deny-actions'], parse: parseRuleList, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ [SETTING_ENV['deny-actions'][0]]: v }), default: null,
  },
  debug: {
    key: 'debug', env: SETTING_ENV['debug'], parse: parseDebug, fromEnv: same, show: same, stored: 'string',
    toEnv: (v): Record<string, string> => (v === 'api' ? { AGENTSTACK_DEBUG: v } : {}), default: 'off',
  },
  // The local activity journal (agentstack-journal.jsonl) the MCP hooks append to.
  journal: {
    key: 'journal', env: SETTING_ENV['journal'], parse: parseOnOff, fromEnv: same, show: same, stored: 'string',
    toEnv: (v): Record<string, string> => (v === 'off' ? { [JOURNAL_ENV]: v } : {}), default: 'on',
  },
  // Where the refresh token is kept (credentials/credentialStore.ts).
  'credential-store': {
    key: 'credential-store', env: SETTING_ENV['credential-store'], parse: parseCredentialStore, fromEnv: same, show: same, stored: 'string',
    toEnv: (v) => ({ [CREDENTIAL_STORE_ENV]: v }), default: 'auto',
  },
};

export function isSettingKey(value: string): value is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(value);
}

export function settingSpec(key: SettingKey): SettingSpec {
  return SPECS[key];
}

/** The environment variable that sets `key` here, and its value (trimmed), when one is set (a blank one is unset). */
export function envValueOf(key: SettingKey, env: NodeJS.ProcessEnv): { name: string; raw: string } | null {
  const read = readEnv(env, SPECS[key].env);
  return read && { name: read.name, raw: read.value };
}

/** Whether automatic sign-in is off in `env` (an environment with the settings applied): the value `config` shows. */
export function autoLoginDisabled(env: NodeJS.ProcessEnv): boolean {
  const read = envValueOf('auto-login', env);
  return read !== null && SPECS['auto-login'].fromEnv(read.raw) === 'false';
}

/** The scope preset a sign-in asks for when none is given: AGENTSTACK_SCOPE_PRESET (or the setting), else the default. */
export function scopePresetFrom(env: NodeJS.ProcessEnv): ScopePreset {
  const value = readEnv(env, SCOPE_PRESET_ENV)?.value;
  if (!value) return DEFAULT_SCOPE_PRESET;
  return parseScopePreset(value, SCOPE_PRESET_ENV) as ScopePreset;
}

/**
 * The base URL `env` (an environment with the settings applied) asks for: AGENTSTACK_BASE_URL or the `base-url`
 * setting, normalized; null when neither is set. Throws `invalid_config` for a value that is not valid.
 */
export function baseUrlIn(env: NodeJS.ProcessEnv): string | null {
  const value = settingFromEnv(env, 'base-url');
  return value ? parseBaseUrl(value) : null;
}

/** The project pin AGENTSTACK_PROJECT_ID sets in `env` (trimmed, unchecked), or null. */
export function projectIdIn(env: NodeJS.ProcessEnv): string | null {
  return settingFromEnv(env, 'project') ?? null;
}

/** Where the refresh token is kept in `env` (an environment with the settings applied): `auto` unless set otherwise. */
export function credentialStoreIn(env: NodeJS.ProcessEnv): (typeof CREDENTIAL_STORES)[number] {
  const value = readEnv(env, CREDENTIAL_STORE_ENV)?.value.toLowerCase();
  return value === 'keychain' || value === 'file' ? value : 'auto';
}

/** Whether the hooks record calls in the activity journal, in `env` (an environment with the settings applied). */
export function journalOn(env: NodeJS.ProcessEnv): boolean {
  return readEnv(env, JOURNAL_ENV)?.value.toLowerCase() !== 'off';
}
