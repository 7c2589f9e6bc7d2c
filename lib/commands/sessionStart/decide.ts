/**
 * The sign-in decision of session start, pure: from the credential's state and what is known locally, whether to
 * do nothing, show a running device flow, start one in the background, or only tell the person what to do. A new
 * input (another reason not to start) is one more field of SignInFacts and one more line in decideSignIn.
 */
import { needsSignIn, type CredentialState } from '../../agentstack/mcpJson/credential.js';
import type { RunningFlow, SignInOutcome } from '../../agentstack/signIn/running.js';
import { MCP_SETTINGS_PAGE } from '../../agentstack/plugin/cursorUi.js';

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
  /** The project pin a new sign-in keeps, or why it cannot be read. */
  pin: { projectId: number | null; ignored?: string } | { error: string };
}

export type SignInDecision =
  | { kind: 'none' }
  | { kind: 'join'; flow: RunningFlow }
  | { kind: 'start'; projectId: number | null }
  | { kind: 'tell'; todo: string };

export const CONNECT_TODO = `Connect AgentStack: click Connect next to AgentStack in ${MCP_SETTINGS_PAGE}, or run /agentstack-authorize.`;
export const autoLoginOffTodo = (why: string) => `Sign in again: run /agentstack-authorize (automatic sign-in is off: ${why}).`;
export const SIGNED_OUT_TODO = 'You signed out of AgentStack on this machine; sign in again with /agentstack-authorize when you want to use it.';
export const FIX_FIRST_TODO = 'Sign in again with /agentstack-authorize once the problem above is fixed.';

const couldNotStart = (why: string) => `Sign in with /agentstack-authorize (automatic sign-in could not start: ${why}).`;

export function decideSignIn(facts: SignInFacts): SignInDecision {
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
  if (outcome.kind === 'failed') return couldNotStart(outcome.message);
  if (outcome.code && outcome.url) {
    return `Sign in to AgentStack: open ${outcome.url} and enter the code ${outcome.code} (valid until ${outcome.expiresAt}). Cursor picks up the new token by itself; progress is logged in ${deviceLog}.`;
  }
  return 'A sign-in is starting in another window; run /agentstack-authorize to see its code.';
}
