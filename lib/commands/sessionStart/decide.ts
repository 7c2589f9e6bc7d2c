/**
 * The sign-in decision of session start, pure: from the credential's state and what is known locally, whether to
 * do nothing, show a running device flow, start one in the background, or only tell the person what to do. A new
 * input (another reason not to start) is one more field of SignInFacts and one more line in decideSignIn.
 */
import { needsSignIn, type CredentialState } from '../../agentstack/mcpJson/credential.js';
import { tilde } from '../../platform/text/tilde.js';
import type { RunningFlow, SignInOutcome } from '../../agentstack/signIn/running.js';
import { SIGN_IN_COMMAND, SIGN_IN_STEP, stepBecause, stepFor, waitingStep } from '../../agentstack/state/story.js';

export interface SignInFacts {
  state: CredentialState;
  /** The device flow running right now, or null. */
  running: RunningFlow | null;
  /** Why automatic sign-in is off (AGENTSTACK_DISABLE_AUTO_LOGIN=1, or the auto-login setting), or null. */
  autoLoginOff: string | null;
  /** Nothing may be sent to a server (a bad AGENTSTACK_BASE_URL, an unreadable mcp.json). */
  offline: boolean;
  /** The person signed out on this machine (`device-code --logout`) and has not signed in since. */
  signedOut: boolean;
  /** mcp.json cannot be read: the card says how to fix it, and no sign-in is started or suggested. */
  mcpUnreadable?: boolean;
  /** The project pin a new sign-in keeps, or why it cannot be read. */
  pin: { projectId: number | null; ignored?: string } | { error: string };
}

export type SignInDecision =
  | { kind: 'none' }
  | { kind: 'join'; flow: RunningFlow }
  | { kind: 'start'; projectId: number | null }
  | { kind: 'tell'; todo: string };

// Each is the next step of the account's story (state/story.ts), so the card says what every view says.
export const CONNECT_TODO = stepFor('never_signed_in')!;
export const autoLoginOffTodo = (why: string) => stepBecause(stepFor('expired')!, `automatic sign-in is off: ${why}`);
export const SIGNED_OUT_TODO = stepFor('signed_out')!;
export const FIX_FIRST_TODO = stepBecause(stepFor('expired')!, 'fix the problem above first');

const couldNotStart = (why: string) => stepBecause(SIGN_IN_STEP, `automatic sign-in could not start: ${why}`);

export function decideSignIn(facts: SignInFacts): SignInDecision {
  if (facts.mcpUnreadable) return { kind: 'none' };
  if (facts.state !== 'unsigned' && !needsSignIn(facts.state)) return { kind: 'none' };
  // Signed out on purpose: never a sign-in unasked, until the person signs in again.
  if (facts.signedOut) return { kind: 'tell', todo: SIGNED_OUT_TODO };
  if (facts.running) return { kind: 'join', flow: facts.running };
  // Never signed in: no browser or device code unasked, only the way to do it.
  if (facts.state === 'unsigned') return { kind: 'tell', todo: CONNECT_TODO };
  if (facts.autoLoginOff) return { kind: 'tell', todo: autoLoginOffTodo(facts.autoLoginOff) };
  if (facts.offline) return { kind: 'tell', todo: FIX_FIRST_TODO };
  if ('error' in facts.pin) return { kind: 'tell', todo: couldNotStart(facts.pin.error) };
  return { kind: 'start', projectId: facts.pin.projectId };
}

/** The card's line for a device flow joined or started, or for a start that failed. */
export function signInTodo(outcome: SignInOutcome, deviceLog: string): string {
  // The keychain's message carries its own fix (never a sign-in that would stop the same way).
  if (outcome.kind === 'failed') return outcome.keychain ? stepBecause('', `automatic sign-in could not start: ${outcome.message}`).trimEnd() : couldNotStart(outcome.message);
  if (outcome.code && outcome.url) return `${waitingStep(outcome)} Progress is logged in ${tilde(deviceLog)}.`;
  return `A sign-in is starting in another window; run ${SIGN_IN_COMMAND} to see its code.`;
}
