/**
 * Where things are in Cursor, and what it may need from the person, said the same way everywhere. From Cursor 3.18
 * the settings page is "Customize" (it was "Cursor Settings"); from 3.20 a newly added MCP server starts turned off,
 * and the Cursor CLI asks again for approval when a server's configuration changes.
 */
export const MCP_SETTINGS_PAGE = 'Customize > MCPs (Cursor Settings > MCP before Cursor 3.18)';
export const HOOKS_SETTINGS_PAGE = 'Customize > Hooks (Cursor Settings > Hooks before Cursor 3.18)';

/** What Cursor may need after a sign-in wrote the `agentstack` entry. */
export const ENABLE_STEP = `If user-agentstack is off in ${MCP_SETTINGS_PAGE}, turn it on (Cursor CLI: agent mcp enable agentstack), and approve it if Cursor asks.`;

/** `ask` is a request to Cursor; only `deny` is certain everywhere. */
export const ASK_GUARANTEE = 'deny rules always hold; ask rules hold where Cursor asks (the interactive IDE and the CLI) and may be skipped under auto-run ("Run Everything") or for allowlisted tools, so use deny-actions (or policy readonly) for what must never run';

/**
 * Whether no AgentStack call has reached the pre-MCP hook since the current token was issued: Cursor may have
 * turned the server off, or wait for the person's approval. Pure.
 */
export function noCallSince(signedInAtMs: number | null, lastCallAt: string | null | undefined): boolean {
  if (signedInAtMs === null) return false;
  const last = lastCallAt ? Date.parse(lastCallAt) : NaN;
  return !Number.isFinite(last) || last < signedInAtMs;
}
