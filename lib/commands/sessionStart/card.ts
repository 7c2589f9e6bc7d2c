/** The status card the session-start hook gives the agent, pure: short, one fact per line, then what to do. */
import type { CredentialState } from '../../agentstack/mcpJson/credential.js';
import { skippedText } from '../../agentstack/snapshot/skipped.js';

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
  /** The person signed out on purpose (and has no credential now). */
  signedOut?: boolean;
  serverUrl: string;
  state: CredentialState;
  apiKey: boolean;
  who: string | null;
  project: string | null;
  expiresAtMs: number | null;
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

const STATE_TEXT: Record<CredentialState, string> = {
  ok: 'signed in',
  unsigned: 'not signed in',
  placeholder: 'not signed in (placeholder credential in mcp.json)',
  expired: 'credential expired',
  null_caps: 'signed in with a key that grants no capabilities',
};

function expiryText(expiresAtMs: number | null, now: number): string {
  if (expiresAtMs === null) return 'no expiry known';
  const minutes = Math.round((expiresAtMs - now) / 60_000);
  const when = new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return minutes >= 0 ? `valid until ${when} (${minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`} left)` : `expired at ${when}`;
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
  const account = input.signedOut ? 'signed out' : input.state === 'ok' ? `${STATE_TEXT.ok}${input.who ? ` as ${input.who}` : ''}${input.apiKey ? ' (API key)' : ''}` : STATE_TEXT[input.state];
  lines.push(`- Account: ${account}`);
  lines.push(`- Project: ${input.project ?? 'none pinned'}`);
  if (!input.apiKey && (input.state === 'ok' || input.state === 'expired' || input.state === 'null_caps')) lines.push(`- Token: ${expiryText(input.expiresAtMs, input.now)}`);
  lines.push(`- Capabilities: ${capabilitiesText(input.capabilities)}`);
  if (input.policy) lines.push(`- Per-action rules: ${input.policy}`);
  lines.push(`- Plugin root: ${input.pluginRoot} (sign in: node "${input.pluginRoot}/hooks/scripts/device-code.mjs"; diagnose: node "${input.pluginRoot}/scripts/diagnose-local.mjs")`);
  for (const note of input.notes) lines.push(`- ${note}`);
  if (input.todo.length) {
    lines.push('Action needed:');
    for (const item of input.todo) lines.push(`- ${item}`);
  }
  return lines.join('\n');
}
