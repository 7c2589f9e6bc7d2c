/**
 * The API trace switch, `AGENTSTACK_DEBUG=api` (or the `debug` setting, which stands for it). Tiny (its one import
 * has none): the hooks test it on every run, and load the trace itself only when it is on.
 */
import { envValue } from '../../platform/env.js';

export const DEBUG_ENV = 'AGENTSTACK_DEBUG';

/** True when `env` (with the settings applied) asks for the API trace. */
export function apiTraceOn(env: NodeJS.ProcessEnv): boolean {
  return envValue(env, DEBUG_ENV)?.toLowerCase() === 'api';
}
