/**
 * Which calls the journal records: AgentStack's execute calls only, identified as the pre-MCP hook identifies them
 * (callIdentity.ts). The first look decides from the hook's input alone, before any file is read; only a call whose
 * server name is not AgentStack's (or missing) but that gives a url needs the bases the plugin knows (mcp.json, the
 * base-url setting) to be placed.
 */
import { isAgentStackCall, namesExecuteTool, serverByName, type CallIdentity } from '../server/callIdentity.js';

export type JournalLook = 'record' | 'skip' | 'bases';

export function journalLook(identity: CallIdentity): JournalLook {
  if (!namesExecuteTool(identity)) return 'skip';
  if (serverByName(identity) === 'agentstack') return 'record';
  if (identity.serverUrl !== null) return 'bases';
  return identity.serverName === null ? 'record' : 'skip';
}

/** The whole answer, once the bases are known. */
export function isJournaledCall(identity: CallIdentity, knownBaseUrls: readonly string[]): boolean {
  return namesExecuteTool(identity) && isAgentStackCall(identity, knownBaseUrls);
}

/** The server a record names: Cursor's name for it, else its url's host. */
export function serverShown(identity: CallIdentity): string {
  if (identity.serverName !== null) return identity.serverName;
  try {
    if (identity.serverUrl !== null) return new URL(identity.serverUrl).host;
  } catch { /* not a url */ }
  return 'agentstack';
}
