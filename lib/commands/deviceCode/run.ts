/**
 * device-code after its arguments are checked: write the pin when asked, say what the settings and the pin file
 * changed, run the Device Code flow, report it; Ctrl-C is a clean "aborted".
 */
import { assertStoreWorks } from '../../agentstack/credentials/storeCheck.js';
import { runDeviceFlow } from '../../agentstack/signIn/flow.js';
import { createReporter, type OutputStreams, type Reporter } from '../../agentstack/signIn/output.js';
import { followRunningSignIn } from '../../agentstack/signIn/follow.js';
import type { DeviceLock } from '../../schemas/state.js';
import { isSignedIn, readStatus } from './status.js';
import { PluginError } from '../../platform/errors.js';
import { setProxyOptions } from '../../platform/net/http.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { savePin } from '../../agentstack/auth/projectPin.js';
import { ignoredPinNotice } from '../../agentstack/state/read.js';
import type { DeviceCodeRequest } from './prepare.js';
import { storyText } from '../../agentstack/state/story.js';

/** Lines for the person before the flow starts: settings that were ignored, a pin file that is not a pin. */
function notices(request: DeviceCodeRequest): string[] {
  const env = request.settings.env;
  const lines = [...request.settings.problems];
  const ignored = ignoredPinNotice(env);
  if (ignored) lines.push(ignored);
  return lines;
}

/**
 * A sign-in was already running: wait for it to end, then say what the disk holds (signed in, exit 0; or not, exit
 * 1 with what to do), so this run never ends on a code that was already used.
 */
async function followToTheEnd(holder: DeviceLock, env: NodeJS.ProcessEnv, reporter: Reporter, signal: AbortSignal): Promise<number> {
  reporter.alreadyRunning(holder);
  const before = readStatus(env).token;
  const { approved } = await followRunningSignIn({ path: cursorPaths(env).deviceLock, holder, signal, onApproved: () => reporter.followedApproved() });
  const { facts, token } = readStatus(env);
  if (!isSignedIn(facts)) {
    return reporter.fail(new PluginError('not_signed_in', `The sign-in that was already running (pid ${holder.pid}) ended without signing in. Run it again for a new code.`));
  }
  reporter.joined({
    server_url: facts.server_url, who: facts.who, project_id: facts.project.id, expires_at: facts.expires_at, refresh_stored: facts.refresh_stored,
    scopes: facts.scopes, capabilities: facts.actions, uncovered_actions: facts.uncovered_actions, fresh: approved || token !== before,
  });
  return 0;
}

/** The unreadable state's story when mcp.json cannot be read, else null (any other problem is the flow's to say). */
function unreadableStory(env: NodeJS.ProcessEnv): string | null {
  try {
    const { facts } = readStatus(env);
    return facts.state === 'unreadable' ? storyText(facts.story) : null;
  } catch {
    return null;
  }
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
  let following: DeviceLock | null = null;
  try {
    // Under credential-store = keychain, a keychain that cannot keep a test entry stops the sign-in before any code
    // is asked for: no one approves a sign-in whose token could not be kept.
    await assertStoreWorks({ env, settings: request.settings, paths: cursorPaths(env) });
    // mcp.json that cannot be read: a sign-in could not write its entry, and the sign-in in it is not lost. The
    // account's story says what to do instead (fix the file).
    const story = unreadableStory(env);
    if (story) return reporter.fail(new PluginError('invalid_config', story));
    if (request.pin !== undefined) {
      const { notice } = savePin(env, cursorPaths(env).project, request.pin);
      pinned = true;
      if (notice) streams.stderr.write(`! ${notice}\n`);
    }
    for (const line of notices(request)) streams.stderr.write(`! ${line}\n`);
    const outcome = await runDeviceFlow({ env, settings: request.settings, scopes: request.scopes, openBrowser: request.openBrowser, signal: controller.signal, onEvent: reporter.onEvent });
    if (outcome.kind === 'already_running') {
      following = outcome.holder;
      return await followToTheEnd(outcome.holder, env, reporter, controller.signal);
    }
    return 0;
  } catch (error) {
    if (controller.signal.aborted && following) {
      return reporter.fail(new PluginError('aborted', `Stopped waiting; the sign-in already running (pid ${following.pid}) goes on.`));
    }
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
