/**
 * How `agentstack-capabilities.json` is laid out, defined once for its one writer and its two fast readers
 * (meta.ts reads the top level from the file's first and last bytes; actionIndex.ts finds single actions in the
 * text). The writer emits 2-space JSON with `actions` between the scalar fields and the approval fields, each
 * action a flat object; the readers cut the `actions` array out and parse what is left.
 */
import type { CapabilitySnapshot } from '../../schemas/state.js';

/** A snapshot older than this is fetched again at session start. */
export const SNAPSHOT_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** After a failed fetch, session start waits this long before it tries again. */
export const SNAPSHOT_RETRY_MS = 15 * 60 * 1000;

/** What every view says of a server whose `GET /mcp/actions` answers 404. */
export function notAgentStackText(baseUrl: string): string {
  return `not an AgentStack server: no capability list (GET ${baseUrl}/mcp/actions answered 404)`;
}

/** Where the `actions` array opens in a written snapshot. */
export const ACTIONS_KEY = '\n  "actions": [';
/** How a non-empty `actions` array ends: its last (flat) object, then `]`. */
export const ACTIONS_END = '\n    }\n  ]';

/** The file's text: the only way a snapshot is turned into bytes. */
export function serializeSnapshot(snapshot: CapabilitySnapshot): string {
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/**
 * The snapshot's text with its `actions` array emptied, from its start (`head`) and its end (`tail`, which begins
 * at `tailOffset` of the whole text; both may be the whole text). Null when the text does not have the layout.
 */
export function withoutActions(head: string, tail: string, tailOffset = 0): string | null {
  const start = head.indexOf(ACTIONS_KEY);
  const end = tail.lastIndexOf(ACTIONS_END);
  if (start < 0 || end < 0 || tailOffset + end < start) return null;
  return `${head.slice(0, start)}${ACTIONS_KEY}]${tail.slice(end + ACTIONS_END.length)}`;
}
