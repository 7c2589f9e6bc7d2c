/**
 * The OAuth protocol steps, on oauth4webapi: endpoint discovery (discovery.ts: RFC 9728 then RFC 8414; AgentStack's
 * built-in paths only for a server that publishes no metadata at all), the device authorization request (RFC 8628),
 * one device-code poll, and the refresh grant. Every
 * request goes through `boundedFetch` (proxy, deadline, body cap, no redirects). Failures become PluginErrors whose
 * messages quote the server only through its OAuth `error`/`error_description`, cut short.
 */
import * as o from 'oauth4webapi';
import { isLoopbackHost, mayRequestFor } from '../server/baseUrl.js';
import { PluginError, quoteShort, redactError } from '../../platform/errors.js';
import { scrubSecrets } from '../../platform/text/scrub.js';
import { boundedFetch } from '../../platform/net/http.js';
import { DeviationError, deviceAuthorizationAccepted, oauthErrorFirst } from '../../platform/net/oauthResponse.js';
import { clientAuthMethod, type ClientAuthMethod } from './clientAuth.js';
import type { DiscoveredEndpoints } from './discovery.js';
import { DEFAULT_CLIENT_ID } from '../settings/keys.js';
import { clientSecretFromEnv, settingFromEnv } from '../settings/variables.js';
import { USER_CODE_MAX_LENGTH, isDisplayableUserCode } from '../signIn/userCode.js';

export { DEFAULT_CLIENT_ID };

/** What discovery found (discovery.ts); the device authorization endpoint is there only when the server offers the grant. */
export type ServerEndpoints = DiscoveredEndpoints;
/** The endpoints of a device sign-in. */
export type OAuthEndpoints = DiscoveredEndpoints & { deviceAuthorizationEndpoint: string };

export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): OAuthClient {
  const clientId = settingFromEnv(env, 'oauth-client-id') ?? DEFAULT_CLIENT_ID;
  const clientSecret = clientSecretFromEnv(env);
  return clientSecret ? { clientId, clientSecret } : { clientId };
}

function isLoopbackHttp(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/** Per-request oauth4webapi options: our fetch, the caller's signal, and plain http only to a loopback host. */
export function requestOptions(url: string, options: RequestOptions = {}) {
  return {
    [o.customFetch]: boundedFetch({ timeoutMs: options.timeoutMs }),
    [o.allowInsecureRequests]: isLoopbackHttp(url),
    signal: options.signal,
  };
}

/** oauth4webapi's form of a method, with the secret where it goes. */
export function clientAuthOf(method: ClientAuthMethod, secret: string | undefined): o.ClientAuth {
  if (method === 'none' || !secret) return o.None();
  return method === 'client_secret_basic' ? o.ClientSecretBasic(secret) : o.ClientSecretPost(secret);
}

/**
 * How `client` authenticates at an endpoint whose metadata lists `supported` (clientAuth.ts): none for a public
 * client, else client_secret_basic or client_secret_post as the list says (Basic when it is absent).
 */
export function clientAuth(client: OAuthClient, supported: readonly string[] | null | undefined, endpoint?: string): o.ClientAuth {
  return clientAuthOf(clientAuthMethod(supported, Boolean(client.clientSecret), endpoint), client.clientSecret);
}

export function asFor(endpoints: Pick<OAuthEndpoints, 'issuer' | 'tokenEndpoint'> & { deviceAuthorizationEndpoint?: string }): o.AuthorizationServer {
  return {
    issuer: endpoints.issuer,
    token_endpoint: endpoints.tokenEndpoint,
    ...(endpoints.deviceAuthorizationEndpoint ? { device_authorization_endpoint: endpoints.deviceAuthorizationEndpoint } : {}),
  };
}

/** True for failures worth retrying later: network, timeout, 5xx and 429. */
export function isTransientError(error: unknown): boolean {
  if (!(error instanceof PluginError)) return false;
  if (error.code === 'network' || error.code === 'timeout') return true;
  const status = error.details?.status;
  return error.code === 'server' && typeof status === 'number' && (status >= 500 || status === 429);
}

const OAUTH_ERROR_CODES: Record<string, 'access_denied' | 'expired_token' | 'invalid_grant'> = {
  access_denied: 'access_denied',
  expired_token: 'expired_token',
  invalid_grant: 'invalid_grant',
};

type Secrets = ReadonlyArray<string | null | undefined>;

/**
 * Maps whatever oauth4webapi or the fetch threw to a PluginError; `what` names the step for the message. The server's
 * words are masked against `secrets` (what the step sent) BEFORE they are cut short: a cut can leave part of an echoed
 * secret that no later pass would recognise.
 */
export function toPluginError(error: unknown, what: string, secrets: Secrets = []): PluginError {
  if (error instanceof PluginError) return redactError(error, secrets);
  const said = (text: unknown, max: number) => quoteShort(scrubSecrets(String(text), secrets), max);
  if (error instanceof o.ResponseBodyError) {
    const code = OAUTH_ERROR_CODES[error.error] ?? 'server';
    const oauthError = said(error.error, 60);
    const description = error.error_description ? `: ${said(error.error_description, 160)}` : '';
    const hint = error.error === 'invalid_client' ? '; the server does not accept this OAuth client: check AGENTSTACK_OAUTH_CLIENT_ID and AGENTSTACK_OAUTH_CLIENT_SECRET' : '';
    return new PluginError(code, `${what} failed: ${oauthError}${description}${hint}`, {
      details: { status: error.status, oauth_error: oauthError },
    });
  }
  if (error instanceof o.WWWAuthenticateChallengeError) {
    return new PluginError('invalid_config', `${what} was refused (HTTP ${error.status}); check AGENTSTACK_OAUTH_CLIENT_ID/_SECRET`, {
      details: { status: error.status },
    });
  }
  const cause = (error as { cause?: unknown })?.cause;
  if (error instanceof o.OperationProcessingError && cause instanceof Response) {
    const kind = cause.status >= 500 || cause.status === 429 ? 'server' : 'invalid_response';
    const who = cause.url ? quoteShort(cause.url, 160) : 'the server';
    if (error.code === o.RESPONSE_IS_NOT_JSON && cause.ok) {
      const type = quoteShort(cause.headers.get('content-type')?.split(';')[0] || 'no content type', 60);
      return new PluginError(kind, `${what} failed: ${who} answered HTTP ${cause.status} with ${type}, not JSON; ${CHECK_BASE_URL}`, { details: { status: cause.status } });
    }
    return new PluginError(kind, `${what} failed: ${who} answered HTTP ${cause.status}`, { details: { status: cause.status } });
  }
  if (error instanceof o.OperationProcessingError && error.code === o.PARSE_ERROR) {
    return new PluginError('invalid_response', `${what} failed: the server's answer is not valid JSON; ${CHECK_BASE_URL}`);
  }
  const message = error instanceof Error ? said(error.message, 160) : 'unexpected failure';
  return new PluginError('invalid_response', `${what} failed: ${message}`);
}

const CHECK_BASE_URL = 'check that the base URL (the base-url setting or AGENTSTACK_BASE_URL) is the AgentStack server';

/** Runs one protocol step; a failure becomes a PluginError that masks the secrets the step sent. */
export async function attempt<T>(what: string, fn: () => Promise<T>, secrets: Secrets = []): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toPluginError(error, what, secrets);
  }
}

/**
 * The endpoints to sign in with (discovery.ts): an authorization server without the device grant stops here with
 * words that say so. Sign-out and renewal use `discoverServer`, which does not need the device grant.
 */
export async function discoverEndpoints(baseUrl: string, options: RequestOptions = {}): Promise<OAuthEndpoints> {
  const { requireDeviceGrant } = await import('./discovery.js');
  return requireDeviceGrant(await discoverServer(baseUrl, options));
}

/** The authorization server's endpoints for `<base>/mcp`, from metadata (or the built-in paths when there is none). */
export async function discoverServer(baseUrl: string, options: RequestOptions = {}): Promise<ServerEndpoints> {
  return attempt('Discovery', async () => {
    const { discoverEndpointsOf } = await import('./discovery.js');
    return discoverEndpointsOf(baseUrl, { fetch: boundedFetch({ timeoutMs: options.timeoutMs }), signal: options.signal });
  });
}

export interface DeviceCodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

export async function requestDeviceCode(
  args: { endpoints: OAuthEndpoints; client: OAuthClient; scope: string } & RequestOptions,
): Promise<DeviceCodeResponse> {
  const { endpoints, client } = args;
  const as = asFor(endpoints);
  const oclient: o.Client = { client_id: client.clientId };
  return attempt('Starting the device sign-in', async () => {
    const res = await o.deviceAuthorizationRequest(as, oclient, clientAuth(client, endpoints.tokenAuthMethods, 'device authorization endpoint'), { ...(args.scope ? { scope: args.scope } : {}), resource: endpoints.resource },
      requestOptions(endpoints.deviceAuthorizationEndpoint, args));
    let accepted: Response;
    try {
      accepted = await deviceAuthorizationAccepted(await oauthErrorFirst(res));
    } catch (error) {
      if (!(error instanceof DeviationError)) throw error;
      throw new PluginError('invalid_response', `The device authorization endpoint ${quoteShort(endpoints.deviceAuthorizationEndpoint, 160)} answered in a form this plugin cannot use: ${error.message}. Ask the server's operator to follow RFC 8628, or use Connect on the server in Cursor's MCP settings.`);
    }
    const body = await o.processDeviceAuthorizationResponse(as, oclient, accepted);
    if (!isDisplayableUserCode(body.user_code)) {
      throw new PluginError('invalid_response', `The server sent a user code that is not short printable text (at most ${USER_CODE_MAX_LENGTH} ASCII characters); refusing to show it. Check that AGENTSTACK_BASE_URL points at AgentStack.`);
    }
    return {
      device_code: body.device_code,
      user_code: body.user_code,
      verification_uri: body.verification_uri,
      ...(body.verification_uri_complete ? { verification_uri_complete: body.verification_uri_complete } : {}),
      expires_in: body.expires_in,
      ...(typeof body.interval === 'number' ? { interval: body.interval } : {}),
    };
  }, [client.clientSecret]);
}

/**
 * We never use the ID token (identity comes from `/api/auth/me`), and with the built-in endpoints there is no issuer
 * to check it against: drop it before oauth4webapi validates the token response.
 */
async function withoutIdToken(res: Response): Promise<Response> {
  if (res.status !== 200) return res;
  const text = await res.text();
  let body = text;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    if (json && typeof json === 'object' && 'id_token' in json) {
      delete json.id_token;
      body = JSON.stringify(json);
    }
  } catch { /* oauth4webapi reports the bad body */ }
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(body, { status: res.status, headers });
}

function tokenSetOf(body: o.TokenEndpointResponse): TokenSet {
  return {
    access_token: body.access_token,
    token_type: body.token_type,
    ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
    ...(typeof body.expires_in === 'number' ? { expires_in: body.expires_in } : {}),
    ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
  };
}

export type PollResult =
  | { kind: 'pending' }
  | { kind: 'slow_down' }
  | { kind: 'success'; tokens: TokenSet }
  | { kind: 'error'; error: PluginError; transient: boolean };

/** One device-code poll of the token endpoint (RFC 8628 §3.4). Never throws, except when `signal` aborts. */
export async function pollDeviceToken(
  args: { endpoints: OAuthEndpoints; client: OAuthClient; deviceCode: string } & RequestOptions,
): Promise<PollResult> {
  const { endpoints, client } = args;
  const as = asFor(endpoints);
  const oclient: o.Client = { client_id: client.clientId };
  try {
    const res = await o.deviceCodeGrantRequest(as, oclient, clientAuth(client, endpoints.tokenAuthMethods), args.deviceCode, {
      ...requestOptions(endpoints.tokenEndpoint, args),
      additionalParameters: { resource: endpoints.resource },
    });
    return { kind: 'success', tokens: tokenSetOf(await o.processDeviceCodeResponse(as, oclient, await withoutIdToken(await oauthErrorFirst(res)))) };
  } catch (error) {
    if (error instanceof o.ResponseBodyError && error.error === 'authorization_pending') return { kind: 'pending' };
    if (error instanceof o.ResponseBodyError && error.error === 'slow_down') return { kind: 'slow_down' };
    const mapped = toPluginError(error, 'Signing in', [args.deviceCode, client.clientSecret]);
    if (args.signal?.aborted || mapped.code === 'aborted') throw new PluginError('aborted', 'Sign-in cancelled');
    return { kind: 'error', error: mapped, transient: isTransientError(mapped) };
  }
}

export interface RefreshGrantArgs extends RequestOptions {
  tokenEndpoint: string;
  clientId: string;
  clientSecret?: string;
  refreshToken: string;
  resource: string;
  /** The MCP URL the refresh record belongs to: plain http to loopback only when it is itself plain http on loopback. */
  mcpUrl: string;
  /**
   * How the client authenticates (chosen from the metadata at sign-in and kept in the refresh record). Absent for a
   * record written before the method was kept: client_secret_post, the way that token was obtained.
   */
  authMethod?: ClientAuthMethod | null;
}

/** The refresh grant. `invalid_grant` means the stored refresh token is dead: clear it and sign in again. */
export async function refreshAccessToken(args: RefreshGrantArgs): Promise<TokenSet> {
  // The endpoint may come from a refresh record written by an older version, which allowed plain http to any loopback.
  if (!mayRequestFor(args.tokenEndpoint, args.mcpUrl)) {
    throw new PluginError(
      'unsafe_url',
      `The stored token endpoint is not https: ${quoteShort(args.tokenEndpoint, 120)} (plain http only to loopback, and only for an MCP server on plain http to loopback); sign in again`,
    );
  }
  const as = asFor({ issuer: new URL(args.tokenEndpoint).origin, tokenEndpoint: args.tokenEndpoint });
  const client: OAuthClient = { clientId: args.clientId, ...(args.clientSecret ? { clientSecret: args.clientSecret } : {}) };
  const oclient: o.Client = { client_id: client.clientId };
  return attempt('Refreshing the access token', async () => {
    const res = await o.refreshTokenGrantRequest(as, oclient, clientAuthOf(args.authMethod ?? 'client_secret_post', client.clientSecret), args.refreshToken, {
      ...requestOptions(args.tokenEndpoint, args),
      additionalParameters: { resource: args.resource },
    });
    return tokenSetOf(await o.processRefreshTokenResponse(as, oclient, await withoutIdToken(await oauthErrorFirst(res))));
  }, [args.refreshToken, args.clientSecret]);
}

/** When the access token expires (ISO), from `expires_in`; null when the server did not say. */
export function expiresAtOf(tokens: Pick<TokenSet, 'expires_in'>, now = Date.now()): string | null {
  return typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? new Date(now + tokens.expires_in * 1000).toISOString() : null;
}
