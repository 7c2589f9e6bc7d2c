/**
 * `config list|get|set|unset`: the settings that reach Cursor however it was started. Values are checked by the
 * same rule as their environment variable before anything is written; a refused value changes nothing (exit 2).
 * `project` is the `agentstack-project` pin file, with the pin's own rules.
 */
import { existsSync } from 'node:fs';
import { PluginError } from '../../platform/errors.js';
import { assertCursorDirIsFolder, cursorPaths } from '../../agentstack/server/paths.js';
import { parsePinArgument, savePin } from '../../agentstack/auth/projectPin.js';
import { settingsTable, type SettingRow } from '../../agentstack/settings/effective.js';
import { envValueOf, isSettingKey, settingSpec, SETTING_KEYS, type SettingKey } from '../../agentstack/settings/keys.js';
import { setStoredSetting, unsetStoredSetting } from '../../agentstack/settings/store.js';
import { originText, renderSettingsTable, rowJson } from './render.js';
import { ruleEntries } from '../../agentstack/policy/rules.js';
import { rulesMatchingNothing } from '../../agentstack/policy/describe.js';
import { snapshotActionsOf } from '../../agentstack/state/read.js';
import { managedRefusal, readManagedSettings } from '../../agentstack/settings/managed.js';
import { tilde } from '../../platform/text/tilde.js';

export type ConfigCommand = { action: 'list' } | { action: 'get'; key: string } | { action: 'set'; key: string; value: string } | { action: 'unset'; key: string };

export interface ConfigResult {
  code: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

const done = (stdout: string, stderr = ''): ConfigResult => ({ code: 0, stdout, stderr });

function keyOf(name: string): SettingKey {
  if (isSettingKey(name)) return name;
  throw new PluginError('invalid_config', `unknown key ${JSON.stringify(name.slice(0, 40))} (keys: ${SETTING_KEYS.join(', ')})`);
}

function rowOf(key: SettingKey, env: NodeJS.ProcessEnv): SettingRow {
  return settingsTable(env).rows.find((r) => r.key === key)!;
}

/** After a change: what is now in effect, and a warning when an environment variable still wins. */
function afterChange(key: SettingKey, env: NodeJS.ProcessEnv, what: string, json: boolean, note = ''): ConfigResult {
  const row = rowOf(key, env);
  const overridden = envValueOf(key, env);
  const warning = (overridden ? `! ${overridden.name} is set in this environment and wins over the setting here; Cursor started from the Dock or a launcher does not see it.\n` : '') + note;
  if (json) return done(`${JSON.stringify({ ...rowJson(row), changed: what })}\n`, warning);
  return done(`✓ ${what}.\n  In effect: ${key} = ${row.value ?? '-'}, from ${originText(row)}.\n  ${APPLIES_FROM[key]}\n`, warning);
}

/** When a change of each key takes effect, as a person reads it after `set` or `unset`. */
export const APPLIES_FROM: Record<SettingKey, string> = {
  'base-url': 'The next sign-in and the next agent session start use it.',
  'auto-login': 'The next agent session start uses it.',
  'scope-preset': 'The next sign-in uses it.',
  project: 'The next sign-in uses it (calls carry the project a sign-in writes).',
  'https-proxy': "The plugin's next request uses it.",
  'no-proxy': "The plugin's next request uses it.",
  'oauth-client-id': 'The next sign-in uses it.',
  policy: 'It applies from the next AgentStack call.',
  'ask-actions': 'It applies from the next AgentStack call.',
  'deny-actions': 'It applies from the next AgentStack call.',
  debug: 'The next script or hook run uses it.',
  journal: 'It applies from the next AgentStack call.',
  'credential-store': 'The next sign-in or renewal uses it (a refresh token already kept moves then).',
};

/** What `get` says on stderr when a key has no value. */
function unsetText(key: SettingKey): string {
  return key === 'project'
    ? "no project pin is set: calls go to your account's default project (config set project ID pins one)"
    : `${key} is not set (config set ${key} VALUE sets it)`;
}

/**
 * A key the organization's managed file sets cannot be changed here; for the rules, a person may add their own but
 * not loosen the organization's: a `policy` looser than the managed one is refused too.
 */
function refuseManaged(key: SettingKey, action: 'set' | 'unset', value: string | null): void {
  if (key === 'project') return;
  const managed = readManagedSettings();
  if (!managed.keys.includes(key)) return;
  if (key === 'ask-actions' || key === 'deny-actions') return;
  if (key === 'policy' && action === 'set' && value !== null && isStricterOrEqual(value, managed.values.policy)) return;
  throw new PluginError('managed_setting', managedRefusal(key, tilde(managed.path)));
}

const RANK: Record<string, number> = { default: 0, 'confirm-writes': 1, readonly: 2 };
const isStricterOrEqual = (value: string, than: string | undefined) => (RANK[value.trim()] ?? -1) >= (RANK[than ?? 'default'] ?? 0);

async function set(key: SettingKey, value: string, env: NodeJS.ProcessEnv, json: boolean): Promise<ConfigResult> {
  refuseManaged(key, 'set', value);
  const paths = cursorPaths(env);
  if (key === 'project') {
    const id = parsePinArgument(value, 'project');
    savePin(env, paths.project, id);
    return afterChange(key, env, id === null ? `Removed the project pin ${tilde(paths.project)}` : `Pinned project ${id} in ${tilde(paths.project)}`, json);
  }
  const checked = settingSpec(key).parse(value, key);
  await setStoredSetting(paths.settings, paths.settingsLock, key, checked);
  return afterChange(key, env, `Set ${key} = ${settingSpec(key).show(checked)} in ${tilde(paths.settings)}`, json, unmatchedNote(key, checked, env));
}

/** A rule list that names no action of the snapshot is kept (the server may add it), with a warning. */
function unmatchedNote(key: SettingKey, value: string, env: NodeJS.ProcessEnv): string {
  if (key !== 'ask-actions' && key !== 'deny-actions') return '';
  const actions = snapshotActionsOf(env);
  if (!actions) return '';
  const unmatched = rulesMatchingNothing(ruleEntries(value), actions);
  return unmatched.length ? `! ${unmatched.map((r) => JSON.stringify(r)).join(', ')} ${unmatched.length === 1 ? 'matches' : 'match'} no action in the capability snapshot (${actions.length} actions); check the spelling.\n` : '';
}

async function unset(key: SettingKey, env: NodeJS.ProcessEnv, json: boolean): Promise<ConfigResult> {
  refuseManaged(key, 'unset', null);
  const paths = cursorPaths(env);
  if (key === 'project') {
    const had = existsSync(paths.project);
    savePin(env, paths.project, null);
    return afterChange(key, env, had ? `Removed the project pin ${tilde(paths.project)}` : `No project pin was set (${tilde(paths.project)})`, json);
  }
  const removed = await unsetStoredSetting(paths.settings, paths.settingsLock, key);
  return afterChange(key, env, removed ? `Removed ${key} from ${tilde(paths.settings)}` : `${key} was not set in ${tilde(paths.settings)}`, json);
}

function list(env: NodeJS.ProcessEnv, json: boolean): ConfigResult {
  const table = settingsTable(env);
  if (json) return done(`${JSON.stringify({ file: table.file.path, settings: table.rows.map(rowJson), problems: table.problems }, null, 2)}\n`);
  return done(renderSettingsTable(table.rows, table.problems));
}

/** `get KEY`: the value in effect; exit 1 when there is none (like `git config`), with `--json` too (its row). */
function get(key: SettingKey, env: NodeJS.ProcessEnv, json: boolean): ConfigResult {
  const row = rowOf(key, env);
  const code = row.value === null ? 1 : 0;
  const warning = (row.problem ? `! ${row.problem}\n` : '') + (code && !json ? `${unsetText(key)}\n` : '');
  if (json) return { code, stdout: `${JSON.stringify(rowJson(row))}\n`, stderr: warning };
  return code ? { code, stdout: '', stderr: warning } : done(`${row.value}\n`, warning);
}

/** A failure: its line on stderr and, with `--json`, one JSON error object on stdout (snake_case, like every field). */
function failed(code: 1 | 2, error: string, message: string, json: boolean): ConfigResult {
  return { code, stdout: json ? `${JSON.stringify({ error, message })}\n` : '', stderr: code === 2 ? `config: ${message}\n` : `X ${message}\n` };
}

export async function runConfig(command: ConfigCommand, options: { env?: NodeJS.ProcessEnv; json?: boolean } = {}): Promise<ConfigResult> {
  const env = options.env ?? process.env;
  const json = options.json === true;
  const changes = command.action === 'set' || command.action === 'unset';
  try {
    assertCursorDirIsFolder(env);
    if (command.action === 'list') return list(env, json);
    const key = keyOf(command.key);
    if (command.action === 'get') return get(key, env, json);
    if (command.action === 'set') return await set(key, command.value, env, json);
    return await unset(key, env, json);
  } catch (error) {
    if (error instanceof PluginError && (error.code === 'invalid_config' || error.code === 'managed_setting')) return failed(2, error.code, changes ? `${error.message.replace(/\.$/, '')}; nothing was changed.` : error.message, json);
    const code = error instanceof PluginError ? error.code : 'io';
    const message = error instanceof PluginError ? error.message : `Unexpected failure: ${(error as Error)?.message ?? String(error)}`;
    return failed(1, code, message, json);
  }
}
