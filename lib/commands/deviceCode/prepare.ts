/**
 * device-code's arguments, checked and resolved before anything runs: the settings applied (environment > settings
 * file > default), the scopes (`--scopes`, else `--scope-preset`, else the scope-preset setting, else the default
 * preset), and the pin asked for with `--project`. A bad value throws `invalid_config`; the entry makes it a usage
 * error (exit 2).
 */
import { PluginError } from '../../platform/errors.js';
import { isScopePreset, type ScopeRequest } from '../../agentstack/auth/scopes.js';
import { parsePinArgument } from '../../agentstack/auth/projectPin.js';
import { applySettings, type AppliedSettings } from '../../agentstack/settings/effective.js';
import { scopePresetFrom } from '../../agentstack/settings/keys.js';

export interface DeviceCodeArgs {
  scopes?: string;
  scopePreset?: string;
  project?: string;
  noBrowser?: boolean;
  json?: boolean;
}

export interface DeviceCodeRequest {
  settings: AppliedSettings;
  scopes: ScopeRequest;
  /** undefined: leave the pin as it is; null: remove it. */
  pin: number | null | undefined;
  openBrowser: boolean;
  json: boolean;
}

function scopesFrom(args: DeviceCodeArgs, env: NodeJS.ProcessEnv): ScopeRequest {
  if (args.scopes !== undefined && args.scopePreset !== undefined) throw new PluginError('invalid_config', '--scopes and --scope-preset cannot be combined (--scopes names the scopes itself)');
  if (args.scopes !== undefined) {
    const asked = args.scopes.split(/[\s,]+/).filter(Boolean);
    if (!asked.length) throw new PluginError('invalid_config', '--scopes needs at least one scope');
    return { scopes: asked };
  }
  if (args.scopePreset === undefined) return { preset: scopePresetFrom(env) };
  const preset = args.scopePreset;
  if (!isScopePreset(preset)) throw new PluginError('invalid_config', `unknown --scope-preset ${JSON.stringify(preset.slice(0, 40))} (use full, readonly or builder)`);
  return { preset };
}

export function prepareDeviceCode(args: DeviceCodeArgs, env: NodeJS.ProcessEnv = process.env): DeviceCodeRequest {
  const settings = applySettings(env);
  return {
    settings,
    scopes: scopesFrom(args, settings.env),
    pin: args.project === undefined ? undefined : parsePinArgument(args.project, '--project'),
    openBrowser: !args.noBrowser,
    json: Boolean(args.json),
  };
}
