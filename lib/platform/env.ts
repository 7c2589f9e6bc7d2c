/**
 * The one way the plugin reads an environment variable, so what is shown (config, diagnose) and what happens (the
 * hooks, the HTTP layer) never differ: surrounding blanks are dropped (cmd.exe keeps the one before `&&` in
 * `set X=1 && ...`), and a variable set to blanks only counts as unset. Of several names for one thing
 * (`no_proxy`, `NO_PROXY`) the first one set wins.
 */

export interface EnvReading {
  /** The variable the value came from. */
  name: string;
  /** Its value, trimmed; never empty. */
  value: string;
}

/** The first of `names` set to more than blanks, trimmed; null when none is. */
export function readEnv(env: NodeJS.ProcessEnv, names: string | readonly string[]): EnvReading | null {
  for (const name of typeof names === 'string' ? [names] : names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return null;
}

/** The trimmed value of `name`, or undefined when it is unset or blank. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return readEnv(env, name)?.value;
}

/** A switch such as `X=1`: on when the trimmed value is `1`. */
export function envFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  return envValue(env, name) === '1';
}
