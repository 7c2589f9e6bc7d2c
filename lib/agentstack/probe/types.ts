/** Shapes shared by the MCP surface probe's modules (no runtime code). */
import type { Check } from '../../platform/report.js';

/** What one HTTP exchange of the probe sent and got back. Never holds the Bearer or a body. */
export interface Exchange {
  seq: number;
  httpMethod: string;
  url: string;
  /** JSON-RPC method(s) in the request body, e.g. `tools/list`. */
  rpcMethod?: string;
  /** `params.name` of a tools/call. */
  toolName?: string;
  /** Request headers that matter to the protocol (session id masked). */
  sent: { sessionId?: string; protocolVersion?: string; mcpMethod?: string; mcpName?: string; lastEventId?: string; authorization: boolean };
  /** When it was sent, in ms since the probe started. */
  atMs: number;
  status?: number;
  contentType?: string;
  /** The `error` of the Bearer challenge a 401 or 403 carried (RFC 6750 §3.1: `invalid_token`, `insufficient_scope`). */
  bearerError?: string;
  /** `Mcp-Session-Id` the server answered with (masked). */
  sessionId?: string;
  durationMs: number;
  error?: string;
  /** Why the exchange was not sent as asked, e.g. the standalone SSE stream the probe does not open. */
  note?: string;
}

/**
 * Something the probe did that a person should know about: a re-initialize after an expired session
 * (`reinitialized`), then how it ended when it did not end well: the new initialize failed, the new session was lost
 * at once, or the retried request failed for another reason.
 */
export interface ProbeEvent {
  kind: 'reinitialized' | 'reinitialize_failed' | 'session_expired_again' | 'retry_failed';
  during: string;
  reason: string;
}

export interface ProbeOptions {
  /** The MCP endpoint, e.g. `https://agentstack.tech/mcp`. */
  mcpUrl: string;
  /** Sent as `Authorization: Bearer …`; never printed. */
  bearer?: string;
  /** Deadline of each HTTP request (default 10 s). */
  timeoutMs?: number;
  /** Replaces the HTTP layer (tests); wrapped by the recorder like the default. */
  fetch?: typeof fetch;
  /** Largest number of tools/list pages followed (default 20). */
  maxPages?: number;
}

export type Era = 'legacy' | 'modern';

export interface ProbeReport {
  mcpUrl: string;
  /** `legacy` = 2025 initialize + sessions; `modern` = 2026-07-28 server/discover, stateless. */
  era?: Era;
  protocolVersion?: string;
  serverInfo?: { name?: string; version?: string };
  checks: Check[];
  /** The raw tool rows of tools/list, all pages (absent when tools/list failed). */
  tools?: unknown[];
  exchanges: Exchange[];
  events: ProbeEvent[];
  durationMs: number;
}

/** A loose tool row as it came off the wire, validated by us (see toolsList.ts). */
export interface ToolSeen {
  page: number;
  name: string | null;
  problems: string[];
  icons: unknown;
}

export interface ToolsWalk {
  pages: number;
  tools: ToolSeen[];
  /** The tool rows exactly as listed, every page in order (for REST parity). */
  rows: unknown[];
  /** `actions_url` of each page (null when absent). */
  actionsUrls: Array<string | null>;
  /** Set when the walk stopped early: a repeated cursor, the page cap, a malformed page. */
  stopped?: string;
}
