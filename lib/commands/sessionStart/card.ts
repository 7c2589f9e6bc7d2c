/** The status card the session-start hook gives the agent, pure: short, one fact per line, then what to do. */
import { skippedText } from '../../agentstack/snapshot/skipped.js';
import { accountText, expiryText, type Account } from '../../agentstack/state/account.js';
import { projectText, type Project } from '../../agentstack/state/project.js';
import { tilde } from '../../platform/text/tilde.js';
import { pluginCommand } from '../../agentstack/plugin/root.js';

/** The Capabilities line: how many actions, how many catalog entries were left out, and what is wrong, if anything. */
export interface CardCapabilities {
  /** Actions in the snapshot; null when there is no usable snapshot. */
  count: number | null;
  skipped?: number;
  skippedReason?: string | null;
  /** The snapshot's problem (a failed fetch, a folder in its place), said on the same line. */
  problem?: string | null;
}

export interface CardInput {
  serverUrl: string;
  account: Account;
  who: string | null;
  project: Project;
  capabilities: CardCapabilities;
  /** The person's per-action rules in one line; omitted when there are none. */
  policy?: string | null;
  pluginRoot: string;
  /** What this session start did or noticed. */
  notes: string[];
  /** What the person should do, most important first. */
  todo: string[];
  now: number;
}

function capabilitiesText(c: CardCapabilities): string {
  if (c.count === null) return c.problem ?? 'no snapshot yet';
  const parts = [`${c.count} actions in the snapshot`];
  if (c.skipped) parts.push(skippedText(c.skipped, c.skippedReason));
  if (c.problem) parts.push(c.problem);
  return parts.join('; ');
}

export function renderCard(input: CardInput): string {
  const lines = [`AgentStack plugin status (server ${input.serverUrl})`];
  const { account } = input;
  lines.push(`- Account: ${accountText(account, input.who)}`);
  lines.push(`- Project: ${projectText(input.project)}`);
  if (account.expiresAt !== null) lines.push(`- Token: ${expiryText(account.expiresAt, input.now)}`);
  lines.push(`- Capabilities: ${capabilitiesText(input.capabilities)}`);
  if (input.policy) lines.push(`- Per-action rules: ${input.policy}`);
  lines.push(`- Plugin root: ${tilde(input.pluginRoot)} (sign in: ${pluginCommand('hooks/scripts/device-code.mjs', input.pluginRoot)}; diagnose: ${pluginCommand('scripts/diagnose-local.mjs', input.pluginRoot)})`);
  for (const note of input.notes) lines.push(`- ${note}`);
  if (input.todo.length) {
    lines.push('Action needed:');
    for (const item of input.todo) lines.push(`- ${item}`);
  }
  return lines.join('\n');
}
