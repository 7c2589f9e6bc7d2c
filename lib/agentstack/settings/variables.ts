/**
 * The environment variables that set the plugin's settings, and the one place that reads them: the rest of the
 * plugin asks here (or for what is in effect, effective.ts) and never reads an `AGENTSTACK_` variable itself, so what
 * runs and what `config` shows cannot differ. Pass an environment with the settings applied (effective.ts
 * `applySettings`), so a value from the settings file counts as its variable. A leaf (its one import has none): the
 * hooks and the low modules (base URL, project pin, the trace switch) import it without a cycle or weight.
 */
import { readEnv } from '../../platform/env.js';

/** Each setting's variables, in the order they are read; the first one set wins. */
export const SETTING_ENV = {
  'base-url': ['AGENTSTACK_BASE_URL'],
  'auto-login': ['AGENTSTACK_DISABLE_AUTO_LOGIN'],
  'scope-preset': ['AGENTSTACK_SCOPE_PRESET'],
  project: ['AGENTSTACK_PROJECT_ID'],
  'https-proxy': ['https_proxy', 'HTTPS_PROXY'],
  'no-proxy': ['no_proxy', 'NO_PROXY'],
  'oauth-client-id': ['AGENTSTACK_OAUTH_CLIENT_ID'],
  policy: ['AGENTSTACK_POLICY'],
  'ask-actions': ['AGENTSTACK_ASK_ACTIONS'],
  'deny-actions': ['AGENTSTACK_DENY_ACTIONS'],
  debug: ['AGENTSTACK_DEBUG'],
  journal: ['AGENTSTACK_JOURNAL'],
  'credential-store': ['AGENTSTACK_CREDENTIAL_STORE'],
} as const satisfies Record<string, readonly string[]>;

export type EnvSettingKey = keyof typeof SETTING_ENV;

/**
 * The OAuth client secret, for a confidential client. Only ever from the environment: a secret is never written to
 * the settings file, so it is no key there.
 */
export const CLIENT_SECRET_ENV = 'AGENTSTACK_OAUTH_CLIENT_SECRET';

/** The raw value (trimmed) the environment gives `key`, or undefined when none of its variables is set. */
export function settingFromEnv(env: NodeJS.ProcessEnv, key: EnvSettingKey): string | undefined {
  return readEnv(env, SETTING_ENV[key])?.value;
}

/** The OAuth client secret (trimmed), or undefined when none is set. */
export function clientSecretFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return readEnv(env, CLIENT_SECRET_ENV)?.value;
}
