/**
 * The API trace switch, `AGENTSTACK_DEBUG=api` (or the `debug` setting, which stands for it). Tiny and free of
 * imports: the hooks test it on every run, and load the trace itself only when it is on.
 */
export const DEBUG_ENV = 'AGENTSTACK_DEBUG';

/** True when `env` (with the settings applied) asks for the API trace. */
export function apiTraceOn(env: NodeJS.ProcessEnv): boolean {
  return env[DEBUG_ENV]?.trim().toLowerCase() === 'api';
}
