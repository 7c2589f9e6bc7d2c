/**
 * Where the API trace goes: a script writes each exchange to stderr as it happens; a hook (whose stderr only
 * Cursor's Hooks output channel shows) appends it to ~/.cursor/agentstack-debug.log, capped, with one rotated file.
 * Every entry is masked by the platform's trace formatter; the secrets this machine already knows (a client secret
 * from the environment, a proxy password) are scrubbed from the first entry on.
 */
import { appendRotating } from '../../platform/fs/rotatingLog.js';
import { setHttpTrace } from '../../platform/net/http.js';
import { httpTraceFormatter } from '../../platform/text/httpTrace.js';
import { cursorPaths } from '../server/paths.js';
import { applySettings } from '../settings/effective.js';
import { clientSecretFromEnv } from '../settings/variables.js';
import { apiTraceOn } from './switch.js';

/** Secrets the environment holds before any exchange: the OAuth client secret and any proxy password. */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const secret = clientSecretFromEnv(env);
  if (secret) out.push(secret);
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:([^/@\s]+)@/i.exec(env[name] ?? '')?.[1];
    if (password) out.push(password, decodeURIComponentSafe(password));
  }
  return out;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Scripts: every later exchange is written to `write` (stderr by default) as it completes. */
export function traceToStderr(env: NodeJS.ProcessEnv, write: (text: string) => void = (text) => { process.stderr.write(text); }): void {
  const format = httpTraceFormatter({ secrets: environmentSecrets(env) });
  setHttpTrace((exchange) => write(`[api] ${format(exchange)}`));
}

/** Scripts: `--debug`, or the switch in the environment or the settings file, turns the stderr trace on. */
export function traceScriptIfAsked(debugFlag: unknown, env: NodeJS.ProcessEnv = process.env): boolean {
  let settingsEnv = env;
  // An unusable Cursor dir is the command's to report, with its own words and exit code.
  try { settingsEnv = applySettings(env).env; } catch { /* the environment alone decides */ }
  if (debugFlag !== true && !apiTraceOn(settingsEnv)) return false;
  traceToStderr(settingsEnv);
  return true;
}

/**
 * Hooks: every later exchange is appended to the debug log, labelled with the hook and its process. A log that
 * cannot be written (a symlink or a FIFO in its place, a full disk) is reported once through `log` and the trace
 * stops; the hook goes on.
 */
export function traceToDebugLog(env: NodeJS.ProcessEnv, label: string, log: (message: string) => void, path = cursorPaths(env).debugLog): void {
  const format = httpTraceFormatter({ secrets: environmentSecrets(env) });
  setHttpTrace((exchange) => {
    try {
      appendRotating(path, `[api ${label} pid ${process.pid}] ${format(exchange)}`);
    } catch (error) {
      setHttpTrace(undefined);
      log(`the debug log ${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'}); tracing stopped`);
    }
  });
}
