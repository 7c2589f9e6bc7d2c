/**
 * OAuth discovery for `<base>/mcp`, one module for the sign-in, the renewal, the sign-out and the probe. The order is
 * the MCP authorization spec's (2025-11-25), and the URLs come from the MCP SDK where it has them: the 401
 * challenge's `resource_metadata` and `scope` (`extractWWWAuthenticateParams`), RFC 9728 metadata there, else at the
 * path-inserted then the root well-known URL; the authorization server's RFC 8414 / OpenID metadata at the SDK's
 * `buildDiscoveryUrls` (OAuth path-inserted, OpenID path-inserted, OpenID path-appended for an issuer with a path;
 * the root forms otherwise). What the SDK does not check is checked here, as oauth4webapi would: the metadata's
 * `issuer` must be identical to the issuer it was fetched for (RFC 8414 §3.3), and a mismatch stops discovery.
 *
 * Credentials go only where metadata points. AgentStack's built-in paths are used only when the server publishes
 * no metadata at all (neither RFC 9728 nor RFC 8414), and the result says so; resource metadata whose `resource`
 * does not cover the MCP URL stops discovery (RFC 9728 §3.3).
 *
 * Hooks load this module only on their sign-in and renewal paths (it brings the SDK's auth module).
 */
import { buildDiscoveryUrls, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { mayRequestFor, mcpUrlFor } from '../server/baseUrl.js';
import { readWebUrl, webUrlOf, webUrlProblemText } from '../../platform/net/webUrl.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { scopesSupportedOf } from '../../schemas/server.js';
import { protectedResourceUrls, readResourceMetadata, type ResourceMetadata } from './resourceMetadata.js';
import { authMethodsOf } from './clientAuth.js';

export const BUILTIN_DEVICE_PATH = '/api/oauth2/device/authorize';
export const BUILTIN_TOKEN_PATH = '/api/oauth2/token';

export interface DiscoveryOptions {
  /** Every request goes through it: the project's boundedFetch (proxy, deadline, body cap, no redirects). */
  fetch: typeof fetch;
  signal?: AbortSignal;
}

/** What the MCP endpoint's 401 to a request without a token said (RFC 6750 §3, RFC 9728 §5.1). */
export interface Challenge {
  resourceMetadataUrl: string | null;
  scope: string | null;
}

export interface Discovery {
  mcpUrl: string;
  challenge: Challenge;
  /** RFC 9728 metadata whose `resource` covers the MCP URL, and where it was found; null when there is none. */
  resourceMetadata: ResourceMetadata | null;
  resourceMetadataUrl: string | null;
  /** The authorization server: the first `authorization_servers` entry, else the MCP server's origin. */
  issuer: string;
  /** Its RFC 8414 / OpenID metadata (issuer checked) and where it was found; null when none was found. */
  asMetadata: Record<string, unknown> | null;
  asMetadataUrl: string | null;
}

/** The authorization server's metadata URLs, in the order the MCP authorization spec tries them (the SDK's list). */
export function authorizationServerUrls(issuer: string): string[] {
  return buildDiscoveryUrls(issuer).map((u) => u.url.href);
}

/**
 * RFC 8414 §3.3: the metadata's `issuer` must be identical to the issuer its URL was built from. Compared as parsed
 * URLs, as oauth4webapi does: `https://a.example` and `https://a.example/` are one issuer, `…/oidc` and `…/oidc/` two.
 */
export function issuerMatches(advertised: unknown, expected: string): boolean {
  const a = readWebUrl(advertised);
  const e = readWebUrl(expected);
  return a.ok && e.ok && a.parsed.href === e.parsed.href;
}

/**
 * The challenge's fields, read by the SDK; a `resource_metadata` the plugin may not request for `mcpUrl` (not https,
 * or plain http to loopback from a server that is not itself plain http on loopback) is dropped.
 */
export function readChallenge(headers: Headers, mcpUrl: string): Challenge {
  const params = extractWWWAuthenticateParams(new Response(null, { headers }));
  const url = params.resourceMetadataUrl?.href ?? null;
  const scope = params.scope?.trim() || null;
  const read = url === null ? null : readWebUrl(url);
  return { resourceMetadataUrl: read?.ok && mayRequestFor(read.url, mcpUrl) ? read.url : null, scope };
}

/**
 * Discovery falls back on absent or unusable documents, never on a cancel or a deadline: a server that did not
 * answer one request in time would otherwise cost every later try its full deadline too.
 */
function stops(error: unknown, options: DiscoveryOptions): boolean {
  return Boolean(options.signal?.aborted) || (error instanceof PluginError && (error.code === 'timeout' || error.code === 'aborted'));
}

async function challengeOf(mcpUrl: string, options: DiscoveryOptions): Promise<Challenge> {
  try {
    const res = await options.fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      signal: options.signal,
    });
    await res.body?.cancel().catch(() => {});
    return res.status === 401 ? readChallenge(res.headers, mcpUrl) : { resourceMetadataUrl: null, scope: null };
  } catch (error) {
    if (stops(error, options)) throw error;
    return { resourceMetadataUrl: null, scope: null };
  }
}

/** GET `url` as JSON: the parsed object on a 200, `{ status }` otherwise, null when it could not be fetched or read. */
async function getJson(url: string, options: DiscoveryOptions): Promise<{ json: unknown } | { status: number } | null> {
  try {
    const res = await options.fetch(url, { headers: { accept: 'application/json' }, signal: options.signal });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      return { status: res.status };
    }
    return { json: await res.json() };
  } catch (error) {
    if (stops(error, options)) throw error;
    return null;
  }
}

async function findResourceMetadata(mcpUrl: string, challenge: Challenge, options: DiscoveryOptions): Promise<{ metadata: ResourceMetadata; url: string } | null> {
  let other: { url: string; resource: string; why?: string } | null = null;
  for (const url of protectedResourceUrls(mcpUrl, challenge.resourceMetadataUrl)) {
    const got = await getJson(url, options);
    if (!got || !('json' in got)) continue;
    const read = readResourceMetadata(got.json, mcpUrl);
    if (read.ok) return { metadata: read.metadata, url };
    if (read.problem !== 'not_metadata' && !other) other = { url, resource: read.resource ?? '', why: read.why && webUrlProblemText(read.why) };
  }
  // Metadata that exists but is for another resource is a refusal, not an absence: the built-in paths are not tried.
  if (other?.why) {
    throw new PluginError('invalid_response', `The resource metadata at ${quoteShort(other.url, 160)} names a resource that ${other.why}, so it cannot name ${quoteShort(mcpUrl, 160)}; refusing to sign in. Ask the server's operator to fix its resource metadata.`, { details: { mcpUrl } });
  }
  if (other) {
    throw new PluginError('invalid_response', `The resource metadata at ${quoteShort(other.url, 160)} names the resource ${JSON.stringify(quoteShort(other.resource, 160))}, which does not cover ${quoteShort(mcpUrl, 160)} (RFC 9728 §3.3); refusing to sign in. Ask the server's operator to fix its resource metadata, or check the server URL.`, { details: { resource: other.resource, mcpUrl } });
  }
  return null;
}

async function findAuthorizationServer(issuer: string, options: DiscoveryOptions): Promise<{ metadata: Record<string, unknown>; url: string } | null> {
  for (const url of authorizationServerUrls(issuer)) {
    const got = await getJson(url, options);
    if (got && 'status' in got && got.status >= 500) {
      throw new PluginError('server', `Discovery failed: ${quoteShort(url, 160)} answered HTTP ${got.status}`, { details: { status: got.status } });
    }
    if (!got || !('json' in got) || !got.json || typeof got.json !== 'object' || Array.isArray(got.json)) continue;
    const metadata = got.json as Record<string, unknown>;
    if (!issuerMatches(metadata.issuer, issuer)) {
      const named = typeof metadata.issuer === 'string' ? JSON.stringify(quoteShort(metadata.issuer, 160)) : 'no issuer';
      throw new PluginError('invalid_response', `The authorization server's metadata at ${quoteShort(url, 160)} names ${named}, not "${quoteShort(issuer, 160)}" (RFC 8414 §3.3: they must be identical); refusing to use it. Ask the server's operator to fix its issuer or authorization_servers.`, { details: { issuer, advertised: typeof metadata.issuer === 'string' ? metadata.issuer : null } });
    }
    return { metadata, url };
  }
  return null;
}

/**
 * The authorization server: the metadata's first `authorization_servers` entry, read as a WebUrl the plugin may
 * request for `mcpUrl` (its canonical href), else the MCP server's origin. Throws `unsafe_url` for any other entry.
 */
function issuerOf(prm: { metadata: ResourceMetadata; url: string } | null, mcpUrl: string): string {
  const named = prm?.metadata.authorization_servers?.find((s) => typeof s === 'string');
  if (prm === null || named === undefined) return new URL(mcpUrl).origin;
  const read = readWebUrl(named);
  if (!read.ok || !mayRequestFor(read.url, mcpUrl)) {
    const what = read.ok
      ? `the authorization server ${quoteShort(read.url, 120)}, which is not https${read.parsed.protocol === 'http:' ? ' (plain http only to loopback, and only for an MCP server on plain http to loopback)' : ''}`
      : `an authorization server that ${webUrlProblemText(read.problem)}`;
    throw new PluginError('unsafe_url', `The resource metadata at ${quoteShort(prm.url, 160)} names ${what}; refusing to use it`);
  }
  return read.url;
}

/** RFC 9728 then RFC 8414 for `<base>/mcp`. Throws on a cancel, a deadline, resource metadata for another resource, a 5xx from the authorization server's metadata, or an issuer mismatch. */
export async function discover(baseUrl: string, options: DiscoveryOptions): Promise<Discovery> {
  const mcpUrl = mcpUrlFor(baseUrl);
  const challenge = await challengeOf(mcpUrl, options);
  const prm = await findResourceMetadata(mcpUrl, challenge, options);
  const issuer = issuerOf(prm, mcpUrl);
  const as = await findAuthorizationServer(issuer, options);
  return {
    mcpUrl,
    challenge,
    resourceMetadata: prm?.metadata ?? null,
    resourceMetadataUrl: prm?.url ?? null,
    issuer,
    asMetadata: as?.metadata ?? null,
    asMetadataUrl: as?.url ?? null,
  };
}

/** How the endpoints were found: from metadata, or AgentStack's built-in paths because the server publishes none. */
export type EndpointSource = 'discovery' | 'builtin';

export interface DiscoveredEndpoints {
  issuer: string;
  /** Absent when the authorization server does not offer the device grant (RFC 8628). */
  deviceAuthorizationEndpoint?: string;
  tokenEndpoint: string;
  /** RFC 8707 `resource`: the resource metadata's `resource` (checked to cover the MCP URL), else the MCP URL. */
  resource: string;
  source: EndpointSource;
  /** What to ask for when nothing is chosen: the challenge's `scope`, else the resource metadata's `scopes_supported`. */
  scopesSupported?: string[] | null;
  /** Where `scopesSupported` came from. */
  scopeSource?: 'challenge' | 'resource_metadata' | null;
  /** The authorization server's own `scopes_supported` (RFC 8414); `offline_access` is asked for only when listed here. */
  serverScopes?: string[] | null;
  revocationEndpoint?: string;
  /** RFC 8414 `token_endpoint_auth_methods_supported` (also the device authorization endpoint's); null: absent. */
  tokenAuthMethods?: string[] | null;
  /** RFC 8414 `revocation_endpoint_auth_methods_supported`; null: absent. */
  revocationAuthMethods?: string[] | null;
  /** A sentence for the person when the built-in paths are used. */
  note?: string;
}

/** No OAuth metadata anywhere: the words every view uses. */
export function noMetadataText(mcpUrl: string): string {
  return `no OAuth metadata (RFC 9728 / RFC 8414) at ${mcpUrl}`;
}

/** An endpoint of the authorization server's metadata, as its canonical href, when the plugin may request it for `mcpUrl`. */
function endpointUrl(metadata: Record<string, unknown>, key: string, where: string, mcpUrl: string): string | undefined {
  const url = metadata[key];
  if (url === undefined || url === null) return undefined;
  if (typeof url !== 'string' || !url) {
    throw new PluginError('invalid_response', `The authorization server's metadata at ${quoteShort(where, 160)} names a ${key} that is not a URL (${url === '' ? 'empty' : typeof url}); refusing to use it`);
  }
  const read = readWebUrl(url);
  if (!read.ok) {
    throw new PluginError('invalid_response', `The authorization server's metadata at ${quoteShort(where, 160)} names a ${key} that ${webUrlProblemText(read.problem)}; refusing to use it`);
  }
  if (!mayRequestFor(read.url, mcpUrl)) {
    throw new PluginError('unsafe_url', `The authorization server's metadata at ${quoteShort(where, 160)} names a ${key} that is not https: ${quoteShort(read.url, 120)}; refusing to use it (plain http only to loopback, and only for an MCP server on plain http to loopback)`);
  }
  return read.url;
}

/** The endpoints, scopes and resource a discovery yields. Pure. */
export function endpointsOf(found: Discovery, baseUrl: string): DiscoveredEndpoints {
  const challengeScopes = found.challenge.scope?.split(/\s+/).filter(Boolean) ?? [];
  const prmScopes = scopesSupportedOf(found.resourceMetadata);
  const scopes = challengeScopes.length
    ? { scopesSupported: [...new Set(challengeScopes)], scopeSource: 'challenge' as const }
    : prmScopes ? { scopesSupported: prmScopes, scopeSource: 'resource_metadata' as const } : { scopesSupported: null, scopeSource: null };
  const resource = found.resourceMetadata?.resource ?? found.mcpUrl;
  if (!found.asMetadata) {
    if (found.resourceMetadata) {
      throw new PluginError('invalid_response', `The resource metadata at ${quoteShort(found.resourceMetadataUrl ?? found.mcpUrl, 160)} names the authorization server ${quoteShort(found.issuer, 160)}, but it publishes no OAuth metadata (RFC 8414 / OpenID) at ${authorizationServerUrls(found.issuer).join(', ')}; nothing to sign in with`);
    }
    return {
      issuer: baseUrl,
      deviceAuthorizationEndpoint: `${baseUrl}${BUILTIN_DEVICE_PATH}`,
      tokenEndpoint: `${baseUrl}${BUILTIN_TOKEN_PATH}`,
      resource,
      source: 'builtin',
      ...scopes,
      serverScopes: null,
      note: `${noMetadataText(found.mcpUrl)}; using AgentStack's built-in endpoints on ${baseUrl}`,
    };
  }
  const where = found.asMetadataUrl ?? found.issuer;
  const tokenEndpoint = endpointUrl(found.asMetadata, 'token_endpoint', where, found.mcpUrl);
  if (!tokenEndpoint) {
    throw new PluginError('invalid_response', `The authorization server's metadata at ${quoteShort(where, 160)} names no token_endpoint; nothing to sign in with`);
  }
  const device = endpointUrl(found.asMetadata, 'device_authorization_endpoint', where, found.mcpUrl);
  let revocation: string | undefined;
  try { revocation = endpointUrl(found.asMetadata, 'revocation_endpoint', where, found.mcpUrl); } catch { /* unusable: treated as none */ }
  return {
    // The issuer as the metadata writes it (checked identical to the one asked for, so a WebUrl), canonical.
    issuer: webUrlOf(found.asMetadata.issuer) ?? found.issuer,
    ...(device ? { deviceAuthorizationEndpoint: device } : {}),
    tokenEndpoint,
    resource,
    source: 'discovery',
    ...scopes,
    serverScopes: scopesSupportedOf(found.asMetadata),
    ...(revocation ? { revocationEndpoint: revocation } : {}),
    tokenAuthMethods: authMethodsOf(found.asMetadata, 'token_endpoint_auth_methods_supported'),
    revocationAuthMethods: authMethodsOf(found.asMetadata, 'revocation_endpoint_auth_methods_supported'),
  };
}

/** Discovery to endpoints in one step. */
export async function discoverEndpointsOf(baseUrl: string, options: DiscoveryOptions): Promise<DiscoveredEndpoints> {
  return endpointsOf(await discover(baseUrl, options), baseUrl);
}

/** The sign-in's own demand: an authorization server that offers the device grant. */
export function requireDeviceGrant<T extends { deviceAuthorizationEndpoint?: string; issuer: string }>(endpoints: T): T & { deviceAuthorizationEndpoint: string } {
  if (!endpoints.deviceAuthorizationEndpoint) {
    throw new PluginError('invalid_config', `The authorization server ${quoteShort(endpoints.issuer, 160)} does not offer device sign-in (RFC 8628); use Connect on the server in Cursor's MCP settings instead`);
  }
  return endpoints as T & { deviceAuthorizationEndpoint: string };
}
