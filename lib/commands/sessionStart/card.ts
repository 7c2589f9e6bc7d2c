/** The status card the session-start hook gives the agent, pure: short, one fact per line, then what to do. */
import type { CredentialState } from '../../agentstack/mcpJson/credential.js';

export interface CardInput {
  /** The person signed out on purpose (and has no credential now). */
  signedOut?: boolean;
  serverUrl: string;
  state: CredentialState;
  apiKey: boolean;
  who: string | null;
  project: string | null;
  expiresAtMs: number | null;
  capabilities: number | null;
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

export function renderCard(input: CardInput): string {
  const lines = [`AgentStack plugin status (server ${input.serverUrl})`];
  const account = input.signedOut ? 'signed out' : input.state === 'ok' ? `${STATE_TEXT.ok}${input.who ? ` as ${input.who}` : ''}${input.apiKey ? ' (API key)' : ''}` : STATE_TEXT[input.state];
  lines.push(`- Account: ${account}`);
  lines.push(`- Project: ${input.project ?? 'none pinned'}`);
  if (!input.apiKey && (input.state === 'ok' || input.state === 'expired' || input.state === 'null_caps')) lines.push(`- Token: ${expiryText(input.expiresAtMs, input.now)}`);
  lines.push(`- Capabilities: ${input.capabilities === null ? 'no snapshot yet' : `${input.capabilities} actions in the snapshot`}`);
  lines.push(`- Plugin root: ${input.pluginRoot} (sign in: node "${input.pluginRoot}/hooks/scripts/device-code.mjs"; diagnose: node "${input.pluginRoot}/scripts/diagnose-local.mjs")`);
  for (const note of input.notes) lines.push(`- ${note}`);
  if (input.todo.length) {
    lines.push('Action needed:');
    for (const item of input.todo) lines.push(`- ${item}`);
  }
  return lines.join('\n');
}
