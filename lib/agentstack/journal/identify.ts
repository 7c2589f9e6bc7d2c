/**
 * Which calls the journal records, decided from the hook's input alone, before any file is read: AgentStack's execute
 * calls, identified as the pre-MCP hook identifies them (callIdentity.ts), and our execute tool at any url. A url the
 * plugin does not know may still be AgentStack's reached another way (the pre-MCP hook asks about such a call while
 * rules are in effect), so the call is kept, under the name or host it was made to; only a call that names another
 * server and no url is left out.
 */
import { namesExecuteTool, placeCall, type CallIdentity } from '../server/callIdentity.js';

export function isJournaledCall(identity: CallIdentity): boolean {
  return namesExecuteTool(identity) && placeCall(identity, []) !== 'other';
}

/** The server a record names: Cursor's name for it, else its url's host. */
export function serverShown(identity: CallIdentity): string {
  if (identity.serverName !== null) return identity.serverName;
  try {
    if (identity.serverUrl !== null) return new URL(identity.serverUrl).host;
  } catch { /* not a url */ }
  return 'agentstack';
}
