/** Fault injection: the knobs tests turn to make the core misbehave in controlled, documented ways. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type EndpointFaultKind = '5xx' | 'hang' | 'reset' | 'malformed' | 'oversized' | 'slow';
export interface EndpointFault {
  kind: EndpointFaultKind;
  /** For `slow`: how long to wait before answering normally (default 3 s). */
  delayMs?: number;
  /** How many requests the fault hits; omitted = every request until cleared. */
  times?: number;
}

/** Route names accepted in `endpointFaults`. */
export const ROUTE_NAMES = [
  'token',
  'revocation',
  'device',
  'activate',
  'registration',
  'jwks',
  'actions',
  'actions_summary',
  'me',
  'switch_project',
  'mcp',
  'tools',
  'discovery',
  'protected_resource',
  'as_metadata',
  'cache_clear',
  'health',
  'icon',
] as const;
export type RouteName = (typeof ROUTE_NAMES)[number];

export interface CoreFaults {
  /** Access-token lifetime in seconds. */
  accessTokenTtl: number;
  /** `interval` sent in the device authorization response (seconds). */
  interval: number;
  /** Answer `slow_down` to the next N device-code polls. */
  slowDown: number;
  /** Device-code polls always answer `authorization_pending`, even after approval. */
  alwaysPending: boolean;
  /** Answer `slow_down` when a client polls one device code faster than its interval (RFC 8628 §3.5). */
  enforceInterval: boolean;
  endpointFaults: Partial<Record<RouteName, EndpointFault>>;
  /** A second tool in tools/list; 'page2' puts it on a second page behind `nextCursor`. */
  secondTool: false | 'same-page' | 'page2';
  /** Every MCP session known when this is set answers its next request with 404 (once), then is forgotten. */
  expireSessions: boolean;
  /** Answer an unknown session with a JSON-RPC error of this code (HTTP 200) instead of HTTP 404. */
  sessionNotFoundCode: number | null;
  /**
   * The HTTP status of that answer (default: 404, or 200 when `sessionNotFoundCode` is set): servers seen in the
   * wild answer 400 or 500 with -32001 / -32016 in the body.
   */
  sessionNotFoundStatus: number | null;
  /**
   * Once this many sessions were opened, initialize answers HTTP 503 with JSON-RPC -32000 "Too many open sessions"
   * (the SDK's example server at its limit); null = no limit.
   */
  initializeLimit: number | null;
  /** Replaces verification_uri and verification_uri_complete in the device authorization response. */
  hostileVerificationUri: string | null;
  /** Every /.well-known document answers 404. */
  noDiscovery: boolean;
  /** No refresh token is issued; access tokens live `accessTokenTtl` (set it high). */
  noRefreshTokens: boolean;
  /**
   * The `aud` of issued access tokens, and what /mcp requires, instead of the MCP URL: a StringOrURI that is not an
   * http(s) URL, as other authorization servers issue (`api://agentstack-mcp`, `urn:example:mcp`, a scope string).
   */
  audience: string | null;
  /** No icons on serverInfo or tools. */
  noIcons: boolean;
  /** /mcp/icon serves bytes that are not a PNG (still labelled image/png). */
  badIcon: boolean;
  /** `total_actions` of /mcp/actions and its summary is off by this many (true = +3). */
  actionsCountMismatch: boolean | number;
  /** Serve a 200 page at /mcp/.well-known/oauth-authorize, the home-made Connect stub the old server had. */
  connectStub: boolean;
  /** GET /mcp/tools and /mcp/tools/list serve stale rows (other description, no icons) unlike JSON-RPC tools/list. */
  restToolsDrift: boolean;
  /**
   * tools/call closes its SSE response stream before the result (after the priming event), so the client must
   * resume with GET + Last-Event-ID to get it; a number closes only that many calls.
   */
  closeCallStream: boolean | number;
  /**
   * tools/call is answered 200 text/event-stream that closes at once, with no event at all (no id to resume from,
   * no result): what a proxy that cuts streams, or a server that crashed mid-call, leaves a client with.
   */
  dropCallStream: boolean;
  /** The `retry` (ms) of the priming event on each response stream of sessions opened while it is set; null = none. */
  sseRetryMs: number | null;
  /**
   * GET /mcp/actions answers this status with this `WWW-Authenticate` (e.g. 403 `Bearer error="insufficient_scope",
   * scope="actions:read"`, or a bare 401 `Bearer realm="x"`) to any valid Bearer; null = the catalog.
   */
  actionsChallenge: { status: number; challenge: string } | null;
}

export function defaultFaults(): CoreFaults {
  return {
    accessTokenTtl: 3600,
    interval: 5,
    slowDown: 0,
    alwaysPending: false,
    enforceInterval: true,
    endpointFaults: {},
    secondTool: false,
    expireSessions: false,
    sessionNotFoundCode: null,
    sessionNotFoundStatus: null,
    initializeLimit: null,
    hostileVerificationUri: null,
    noDiscovery: false,
    noRefreshTokens: false,
    audience: null,
    noIcons: false,
    badIcon: false,
    actionsCountMismatch: false,
    connectStub: false,
    restToolsDrift: false,
    closeCallStream: false,
    dropCallStream: false,
    sseRetryMs: null,
    actionsChallenge: null,
  };
}

export function countMismatch(faults: CoreFaults): number {
  const v = faults.actionsCountMismatch;
  return v === true ? 3 : typeof v === 'number' ? v : 0;
}

const OVERSIZED_BYTES = 11 * 1024 * 1024;

/** For a `slow` fault armed on `route`: how long to hold the request before answering it normally (counts `times`). */
export function endpointDelayMs(faults: CoreFaults, route: RouteName | null): number {
  const fault = route ? faults.endpointFaults[route] : undefined;
  if (!fault || fault.kind !== 'slow') return 0;
  if (fault.times !== undefined) {
    if (fault.times <= 0) return 0;
    fault.times -= 1;
  }
  return fault.delayMs ?? 3_000;
}

/**
 * Applies an endpoint fault to a request if one is armed for `route`. Returns true when the fault answered
 * (or deliberately did not answer) the request, so the caller must stop.
 */
export function applyEndpointFault(
  faults: CoreFaults,
  route: RouteName | null,
  req: IncomingMessage,
  res: ServerResponse,
  hung: Set<ServerResponse>,
): boolean {
  if (!route) return false;
  const fault = faults.endpointFaults[route];
  if (!fault || fault.kind === 'slow') return false;
  if (fault.times !== undefined) {
    if (fault.times <= 0) return false;
    fault.times -= 1;
  }
  switch (fault.kind) {
    case '5xx': {
      const body = JSON.stringify({ error: 'server_error', error_description: `injected fault on ${route}` });
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(body);
      return true;
    }
    case 'hang':
      hung.add(res);
      res.on('close', () => hung.delete(res));
      req.resume();
      return true;
    case 'reset':
      req.socket.destroy();
      return true;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": {"oops": [1, 2,');
      return true;
    case 'oversized': {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(OVERSIZED_BYTES + 12) });
      res.write('{"padding":"');
      const block = Buffer.alloc(1024 * 1024, 'x');
      let written = 0;
      const pump = (): void => {
        while (written < OVERSIZED_BYTES - 2) {
          written += block.length;
          const slice = written > OVERSIZED_BYTES - 2 ? block.subarray(0, block.length - (written - (OVERSIZED_BYTES - 2))) : block;
          if (!res.write(slice)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end('"}');
      };
      res.on('error', () => {});
      pump();
      return true;
    }
  }
}

export function mergeFaults(target: CoreFaults, patch: Partial<CoreFaults>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (key === 'endpointFaults') {
      // copy so `times` counting does not mutate the caller's object
      const copy: CoreFaults['endpointFaults'] = {};
      for (const [name, f] of Object.entries(value as CoreFaults['endpointFaults'])) {
        if (f) copy[name as RouteName] = { ...f };
      }
      target.endpointFaults = copy;
    } else {
      (target as unknown as Record<string, unknown>)[key] = value;
    }
  }
}
