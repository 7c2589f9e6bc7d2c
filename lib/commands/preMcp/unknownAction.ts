/**
 * The answer for an execute call that names actions the capability snapshot does not list, with the closest
 * existing names for each. Pure; the full check (decide.ts) and the gate's deny (gate/deny.ts) both give it.
 */
import type { PreMcpAnswer } from './answer.js';
import { because } from './reason.js';
import { closestActions, type NameIndex } from './suggest.js';

/** At most this many actions are named in one message. */
export const MAX_NAMED = 5;

/**
 * `unknown`: the call's actions the snapshot lacks, each once, in the call's order; `names`: every action the snapshot
 * lists (what suggestions look at); `skipped`: entries of the server's list the plugin could not read (then one of
 * them may be the action, and the person decides: `ask` instead of `deny`).
 */
export function unknownActionAnswer(unknown: readonly string[], names: readonly string[] | NameIndex, skipped: number): PreMcpAnswer {
  const hints = unknown.slice(0, MAX_NAMED).map((name) => {
    const near = closestActions(name, names);
    return near.length ? `"${name}" (closest: ${near.join(', ')})` : `"${name}" (no similar action)`;
  });
  if (skipped > 0) {
    const entries = `${skipped} ${skipped === 1 ? 'entry' : 'entries'}`;
    return because('unknown_action', {
      permission: 'ask',
      user_message: `AgentStack: this call uses an action the plugin does not know: ${hints.join('; ')}. The server's action list had ${entries} the plugin could not read, so it may be one of them. Allow only if you expect this action.`,
      agent_message: `AgentStack's action list as the plugin read it has no action ${hints.join('; ')}, but ${entries} of the list could not be read; the person is asked to confirm. If the call fails, use an existing action name (the action "actions.list" lists them).`,
    });
  }
  return because('unknown_action', {
    permission: 'deny',
    user_message: `AgentStack blocked this call: unknown action ${hints.join('; ')}.`,
    agent_message: `AgentStack has no action ${hints.join('; ')}. Use an existing action name (the action "actions.list" lists them) and call again.`,
  });
}
