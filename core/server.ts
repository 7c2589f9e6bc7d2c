/** Composes the reference core: node:http on 127.0.0.1, origin + bearer checks, faults, REST, MCP, OAuth provider. */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MCP_PATH } from './contract.js';
import { Variants, type VariantName } from './variants.js';
import { SEEDED_ACCOUNTS, type CoreAccount } from './accounts.js';
import { INTERNAL_HEADER, TokenAuth, approveDevice, generateSigningKeys, issueTokensDirect, type IssuedTokens } from './auth.js';
import { tokenGate } from './deviceflow.js';
import { applyEndpointFault, endpointDelayMs, defaultFaults, mergeFaults, type CoreFaults, type RouteName } from './faults.js';
import { HttpError, bearerToken, sendError, sendHtml, sendJson } from './http.js';
import { buildLogoPng } from './icon.js';
import { handleInteraction } from './interactions.js';
import { McpSessions } from './mcp.js';
import { OAUTH_ROUTES, createProvider } from './oauth.js';
import { CONNECT_STUB_PATH, connectStubPage } from './pages.js';
import { CoreStore } from './registry.js';
import { REST_ROUTES, catalogFor, resourceMetadataUrl } from './rest.js';
import { newCounters, type CoreCounters, type CoreState } from './state.js';

export interface CoreOptions {
  /** Port on 127.0.0.1; default 0 (a free port). */
  port?: number;
  faults?: Partial<CoreFaults>;
  /** Seconds; default 3600. Same as faults.accessTokenTtl. */
  accessTokenTtl?: number;
  /** Device-flow polling interval in seconds; default 5. Same as faults.interval. */
  interval?: number;
  /** Device code lifetime in seconds; default 600. */
  deviceCodeTtl?: number;
  log?: (line: string) => void;
  /**
   * Serve /mcp to requests without a Bearer as the default test account. Off by default and never on in tests of
   * the plugin: it exists so peers that cannot send headers (the MCP Inspector CLI 0.15, the last on Node 20) can
   * be timed against the same core in `npm run bench`.
   */
  anonymousMcp?: boolean;
  /** Serve the contract differently, as another compatible server might (variants.ts); several combine. */
  variant?: VariantName | readonly VariantName[];
  /** Told each user code as it is issued (after the answer is on its way). */
  onDeviceCode?: (userCode: string) => void;
}

export interface RunningCore {
  baseUrl: string;
  mcpUrl: string;
  issuer: string;
  accounts: CoreAccount[];
  approve(userCode: string, opts?: { account?: string; deny?: boolean; scope?: string }): Promise<void>;
  issueTokens(opts?: { account?: string; scope?: string; accessTokenTtl?: number; refreshedAccessTokenTtl?: number; claims?: Record<string, unknown> }): Promise<IssuedTokens>;
  counters: CoreCounters;
  setFaults(faults: Partial<CoreFaults>): void;
  /** The live fault settings (read-only view). */
  faults(): Readonly<CoreFaults>;
  actionsCatalog(): unknown;
  /** The variants this core serves (empty: the default contract). */
  variants: VariantName[];
  /** Number of live MCP sessions. */
  mcpSessionCount(): number;
  /** Every device code, access, refresh and ID token issued so far. */
  issuedSecrets(): string[];
  close(): Promise<void>;
}

function routeNameFor(method: string, path: string): RouteName | null {
  if (path === OAUTH_ROUTES.token) return 'token';
  if (path === OAUTH_ROUTES.revocation) return 'revocation';
  if (path === OAUTH_ROUTES.device_authorization) return 'device';
  if (path === OAUTH_ROUTES.code_verification || path.startsWith(`${OAUTH_ROUTES.code_verification}/`)) return 'activate';
  if (path.startsWith(OAUTH_ROUTES.registration)) return 'registration';
  if (path === OAUTH_ROUTES.jwks) return 'jwks';
  if (path.startsWith('/.well-known/oauth-protected-resource')) return 'protected_resource';
  if (path.startsWith('/.well-known/oauth-authorization-server') || path === '/.well-known/openid-configuration') return 'as_metadata';
  if (path === MCP_PATH) return 'mcp';
  return REST_ROUTES.find((r) => r.path === path && r.methods.includes(method))?.name ?? null;
}

export async function startCore(options: CoreOptions = {}): Promise<RunningCore> {
  const faults = defaultFaults();
  if (options.accessTokenTtl !== undefined) faults.accessTokenTtl = options.accessTokenTtl;
  if (options.interval !== undefined) faults.interval = options.interval;
  mergeFaults(faults, options.faults ?? {});
  const variants = new Variants(typeof options.variant === 'string' ? [options.variant] : options.variant ?? []);
  if (variants.has('no-discovery')) faults.noDiscovery = true;
  const log = options.log ?? (() => {});
  const keys = await generateSigningKeys();
  const icon = buildLogoPng(64);
  const sockets = new Set<Socket>();
  const server = createServer();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const baseOrigin = new URL(baseUrl).origin;
  // The `other-issuer` variant: same listener, another origin (a host name instead of the address) for the AS.
  const issuer = variants.has('other-issuer') ? `http://localhost:${port}` : baseUrl;
  const issuerHost = new URL(issuer).host;

  const state: CoreState = {
    baseUrl,
    mcpUrl: `${baseUrl}${MCP_PATH}`,
    resource: variants.has('root-resource-metadata') ? baseUrl : `${baseUrl}${MCP_PATH}`,
    issuer,
    faults,
    variants,
    counters: newCounters(),
    store: new CoreStore(),
    deviceCodeTtl: options.deviceCodeTtl ?? 600,
    log,
    overrides: new Map(),
    polls: new Map(),
    issuedSecrets: new Set(),
    hung: new Set(),
    internalToken: randomBytes(24).toString('base64url'),
    ...(options.onDeviceCode ? { onDeviceCode: (code: string) => setTimeout(() => options.onDeviceCode!(code), 0) } : {}),
  };
  const provider = createProvider(state, keys.privateJwk);
  state.provider = provider;
  const providerCallback = provider.callback();
  const auth = new TokenAuth(state, keys);
  const mcp = new McpSessions(state);
  if (faults.expireSessions) {
    mcp.expireNextAfterHandshake = true; // nothing to expire yet: expire the first session right after its handshake
    faults.expireSessions = false;
  }

  const unauthorized = (res: ServerResponse, hadToken: boolean) => {
    const challenge = `Bearer resource_metadata="${resourceMetadataUrl(state)}"${hadToken ? ', error="invalid_token"' : ''}`;
    sendJson(res, 401, { error: hadToken ? 'invalid_token' : 'unauthorized', error_description: hadToken ? 'the access token is invalid or expired' : 'a Bearer token is required' }, { 'www-authenticate': challenge });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', baseUrl);
    const path = url.pathname;
    const internal = req.headers[INTERNAL_HEADER] === state.internalToken;
    if (!internal) state.counters.requests[`${method} ${path}`] = (state.counters.requests[`${method} ${path}`] ?? 0) + 1;
    const route = routeNameFor(method, path);

    const origin = req.headers.origin;
    if (typeof origin === 'string' && origin !== baseOrigin && origin !== new URL(issuer).origin && route !== 'icon') {
      sendError(res, 403, 'forbidden_origin', `origin ${origin.slice(0, 200)} is not allowed`);
      return;
    }
    const delayMs = internal ? 0 : endpointDelayMs(faults, route);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!internal && applyEndpointFault(faults, route, req, res, state.hung)) return;
    if (faults.noDiscovery && path.startsWith('/.well-known/')) {
      sendError(res, 404, 'not_found', 'no discovery documents here');
      return;
    }
    if (faults.connectStub && path === CONNECT_STUB_PATH) {
      sendHtml(res, 200, connectStubPage());
      return;
    }
    if (route === 'mcp') {
      if (options.anonymousMcp && !req.headers.authorization) {
        anonymousToken ??= core.issueTokens().then((t) => t.access_token);
        req.headers.authorization = `Bearer ${await anonymousToken}`;
      }
      const caller = await auth.verify(req);
      if (!caller) return unauthorized(res, bearerToken(req) !== null);
      await mcp.handle(req, res, caller, bearerToken(req)!);
      return;
    }
    const rest = REST_ROUTES.find((r) => r.path === path);
    if (rest) {
      if (!rest.methods.includes(method)) {
        res.writeHead(405, { allow: rest.methods.join(', ') }).end();
        return;
      }
      const caller = rest.auth === 'bearer' ? await auth.verify(req) : null;
      if (rest.auth === 'bearer' && !caller) return unauthorized(res, bearerToken(req) !== null);
      await rest.handle({ state, req, res, caller, auth, icon });
      return;
    }
    if (issuer !== baseUrl && req.headers.host !== issuerHost) {
      sendError(res, 404, 'not_found', `the authorization server is ${issuer}`);
      return;
    }
    if (await handleInteraction(state, req, res, path)) return;
    if (route === 'token' && method === 'POST' && (await tokenGate(state, req, res, internal))) return;
    providerCallback(req, res);
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) {
        sendError(res, err.status, err.code, err.message);
      } else {
        log(`core error on ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}`);
        sendError(res, 500, 'server_error', 'internal error');
      }
    });
  });

  let closing: Promise<void> | undefined;
  let anonymousToken: Promise<string> | undefined;
  const core: RunningCore = {
    baseUrl,
    mcpUrl: state.mcpUrl,
    issuer: state.issuer,
    accounts: SEEDED_ACCOUNTS.map((a) => ({ ...a })),
    async approve(userCode, opts) {
      await approveDevice(state, userCode, opts);
    },
    issueTokens: (opts) => issueTokensDirect(state, opts),
    counters: state.counters,
    setFaults(patch) {
      mergeFaults(faults, patch);
      if (faults.expireSessions) {
        mcp.expireAll();
        faults.expireSessions = false;
      }
    },
    faults: () => faults,
    actionsCatalog: () => catalogFor(state),
    mcpSessionCount: () => mcp.size,
    issuedSecrets: () => [...state.issuedSecrets],
    variants: variants.list(),
    close() {
      closing ??= (async () => {
        for (const res of state.hung) res.destroy();
        state.hung.clear();
        await mcp.closeAll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
        await closed;
      })();
      return closing;
    },
  };
  log(`AgentStack reference core listening on ${baseUrl}`);
  return core;
}
