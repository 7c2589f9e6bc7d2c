/**
 * The pre-MCP hook's answer, as Cursor reads it. The neutral answer is `{}`: no `permission` at all. Cursor's hooks
 * documentation lists `permission` as allow | deny | ask; `allow` is used in the wild to skip Cursor's own approval
 * prompt, so this hook never answers `allow`: it can only narrow what Cursor would otherwise allow.
 */
import { displayLines } from '../../platform/text/displayText.js';
import { because, reasonsOf } from './reason.js';

export interface PreMcpAnswer {
  permission?: 'deny' | 'ask';
  user_message?: string;
  agent_message?: string;
}

export const NEUTRAL: PreMcpAnswer = Object.freeze({});

/**
 * `answer` with its messages made safe to show, keeping the reasons it was given for: the messages quote action
 * names from the call and the server's snapshot, and no hidden character (a terminal escape, a bidi control) may
 * reach the person or the agent.
 */
export function shownSafely(answer: PreMcpAnswer): PreMcpAnswer {
  if (!answer.permission) return answer;
  const out: PreMcpAnswer = { ...answer };
  if (out.user_message !== undefined) out.user_message = displayLines(out.user_message);
  if (out.agent_message !== undefined) out.agent_message = displayLines(out.agent_message);
  return because(reasonsOf(answer), out);
}
