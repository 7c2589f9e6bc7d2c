/**
 * device-code after its arguments are checked: write the pin when asked, say what the settings and the pin file
 * changed, run the Device Code flow, report it; Ctrl-C is a clean "aborted".
 */
import { runDeviceFlow } from '../../agentstack/signIn/flow.js';
import { createReporter, type OutputStreams } from '../../agentstack/signIn/output.js';
import { PluginError } from '../../platform/errors.js';
import { setProxyOptions } from '../../platform/net/http.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { readProjectPin, savePin } from '../../agentstack/auth/projectPin.js';
import type { DeviceCodeRequest } from './prepare.js';

/** Lines for the person before the flow starts: settings that were ignored, a pin file that is not a pin. */
function notices(request: DeviceCodeRequest): string[] {
  const env = request.settings.env;
  const lines = [...request.settings.problems];
  try {
    const pin = readProjectPin(env, cursorPaths(env).project);
    if (pin.ignored) lines.push(pin.ignored);
  } catch { /* a bad AGENTSTACK_PROJECT_ID stops the flow itself, with its own message */ }
  return lines;
}

export async function runDeviceCode(request: DeviceCodeRequest, streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const env = request.settings.env;
  setProxyOptions(request.settings.proxy);
  const reporter = createReporter({ json: request.json, streams });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let pinned = false;
  try {
    if (request.pin !== undefined) {
      const { notice } = savePin(env, cursorPaths(env).project, request.pin);
      pinned = true;
      if (notice) streams.stderr.write(`! ${notice}\n`);
    }
    for (const line of notices(request)) streams.stderr.write(`! ${line}\n`);
    const outcome = await runDeviceFlow({ env, scopes: request.scopes, openBrowser: request.openBrowser, signal: controller.signal, onEvent: reporter.onEvent });
    if (outcome.kind === 'already_running') reporter.alreadyRunning(outcome.holder);
    return 0;
  } catch (error) {
    if (controller.signal.aborted) {
      const changed = pinned ? 'only the project pin was written' : 'nothing was changed';
      return reporter.fail(new PluginError('aborted', `Sign-in cancelled; ${changed}. Run it again when you are ready.`));
    }
    return reporter.fail(error);
  } finally {
    reporter.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
