/** Session start's sign-in step: the facts read locally, decideSignIn's decision, and a background sign-in started. */
import { readProjectPin } from '../../agentstack/auth/projectPin.js';
import type { CredentialView } from '../../agentstack/mcpJson/credential.js';
import { isSignedOut } from '../../agentstack/auth/signedOut.js';
import { refreshBelongsTo } from '../../agentstack/auth/refreshStore.js';
import { runningFlow, type SignInOutcome } from '../../agentstack/signIn/running.js';
import { signInOrigins } from '../../agentstack/signIn/lock.js';
import { decideSignIn, signInTodo, type SignInFacts } from './decide.js';
import { AUTO_LOGIN_ENV, autoLoginDisabled, envValueOf } from '../../agentstack/settings/keys.js';
import type { Run } from './context.js';

/** The origins a running sign-in's page may be on: the server's, and the token endpoint we recorded for it. */
function pageOrigins(run: Run): string[] {
  return signInOrigins(run.baseUrl, [run.stored && refreshBelongsTo(run.stored, run.baseUrl) ? run.stored.token_endpoint : null]);
}

/** Step 4: the facts for decideSignIn, read locally (no network code is loaded for them). */
function signInFacts(run: Run, gate: CredentialView): SignInFacts {
  const { env } = run;
  let pin: SignInFacts['pin'];
  // The background sign-in keeps the project pin exactly as device-code would; a pin file that holds no pin is
  // ignored (and said), a bad AGENTSTACK_PROJECT_ID stops it.
  try {
    const read = readProjectPin(env, run.paths.project);
    pin = { projectId: read.projectId, ...(read.ignored ? { ignored: read.ignored } : {}) };
  } catch (error) {
    pin = { error: (error as Error).message };
  }
  return {
    state: gate.state,
    running: gate.state === 'ok' ? null : runningFlow(run.paths.deviceLock, run.ctx.now(), pageOrigins(run)),
    autoLoginOff: !autoLoginDisabled(env) ? null
      : envValueOf('auto-login', run.options.env) ? `${AUTO_LOGIN_ENV}=1` : 'auto-login is false in the settings',
    offline: run.offline,
    mcpUnreadable: run.unreadable,
    signedOut: gate.state !== 'ok' && isSignedOut(run.paths.signedOut),
    pin,
  };
}

/** Returns the facts it decided on (the card shows the project pin they read). */
export async function signInStep(run: Run, gate: CredentialView): Promise<SignInFacts> {
  const facts = signInFacts(run, gate);
  const decision = decideSignIn(facts);
  if (decision.kind === 'none') return facts;
  if (decision.kind === 'tell') {
    run.ctx.todo.push(decision.todo);
    return facts;
  }
  let outcome: SignInOutcome = decision.kind === 'join' ? decision.flow : { kind: 'failed', message: 'the network steps could not start' };
  if (decision.kind === 'start') {
    if ('ignored' in facts.pin && facts.pin.ignored) run.ctx.todo.push(facts.pin.ignored);
    const net = await run.net();
    if (net) outcome = await net.startSignIn({ paths: run.paths, env: run.env, baseUrl: run.baseUrl, origins: pageOrigins(run), projectId: decision.projectId, deadline: run.ctx.deadline, script: run.options.script, now: run.ctx.now });
  }
  run.ctx.todo.push(signInTodo(outcome, run.paths.deviceLog));
  return facts;
}
