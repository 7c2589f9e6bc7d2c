/**
 * The API trace switch, `AGENTSTACK_DEBUG=api` (or the `debug` setting, which stands for it). Tiny (its one import
 * chain is settings/variables.ts and the platform's env reader): the hooks test it on every run, and load the trace
 * itself only when it is on.
 */
import { settingFromEnv } from '../settings/variables.js';

/** True when `env` (with the settings applied) asks for the API trace. */
export function apiTraceOn(env: NodeJS.ProcessEnv): boolean {
  return settingFromEnv(env, 'debug')?.toLowerCase() === 'api';
}
