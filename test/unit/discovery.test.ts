/**
 * The pure decisions of OAuth discovery: where the authorization server's metadata is looked for (the MCP SDK's
 * order), the RFC 8414 §3.3 issuer rule, what the 401 challenge says, which resource is sent, which endpoints are
 * used (and when the built-in ones may be), and which scopes a sign-in asks for.
 */
import { describe, expect, it } from 'vitest';
import { authorizationServerUrls, discover, endpointsOf, issuerMatches, noMetadataText, readChallenge, requireDeviceGrant, type Discovery } from '../../lib/agentstack/auth/discovery.js';
import type { WebUrl } from '../../lib/platform/net/webUrl.js';
import { resourceCovers } from '../../lib/agentstack/server/baseUrl.js';
import { refreshBelongsTo } from '../../lib/agentstack/auth/refreshStore.js';
import { resolveScopes } from '../../lib/agentstack/auth/scopes.js';
import { capabilityKind } from '../../lib/agentstack/auth/capabilityKind.js';

describe('where the authorization server metadata is looked for', () => {
  it('an issuer with a path: OAuth path-inserted, OpenID path-inserted, OpenID path-appended', () => {
    expect(authorizationServerUrls('http://localhost:4100/oidc')).toEqual([
      'http://localhost:4100/.well-known/oauth-authorization-server/oidc',
      'http://localhost:4100/.well-known/openid-configuration/oidc',
      'http://localhost:4100/oidc/.well-known/openid-configuration',
    ]);
  });
  it('a root issuer: the two root forms', () => {
    expect(authorizationServerUrls('https://as.example')).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ]);
  });
});

describe('the issuer must be identical (RFC 8414 §3.3)', () => {
  it('compares parsed URLs: a root issuer with or without its slash is one, a path issuer with a trailing slash is another', () => {
    expect(issuerMatches('https://as.example', 'https://as.example/')).toBe(true);
    expect(issuerMatches('https://AS.example:443/', 'https://as.example')).toBe(true);
    expect(issuerMatches('http://localhost:4100/oidc', 'http://localhost:4100/oidc')).toBe(true);
    expect(issuerMatches('http://localhost:4100/oidc/', 'http://localhost:4100/oidc')).toBe(false);
    expect(issuerMatches('https://other.example', 'https://as.example')).toBe(false);
    expect(issuerMatches(undefined, 'https://as.example')).toBe(false);
    expect(issuerMatches('not a url', 'https://as.example')).toBe(false);
  });
});

describe('the 401 challenge', () => {
  const MCP_URL = 'https://mcp.example/mcp';
  const headers = (value: string) => new Headers({ 'www-authenticate': value });
  it('reads resource_metadata and scope, quoted or not', () => {
    expect(readChallenge(headers('Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="mcp:read"'), MCP_URL))
      .toEqual({ resourceMetadataUrl: 'https://mcp.example/.well-known/oauth-protected-resource', scope: 'mcp:read' });
    expect(readChallenge(headers('Bearer scope=mcp:read'), MCP_URL)).toEqual({ resourceMetadataUrl: null, scope: 'mcp:read' });
  });
  it('drops a resource_metadata that is not https (or loopback http), and reads nothing from another scheme', () => {
    expect(readChallenge(headers('Bearer resource_metadata="http://mcp.example/x"'), MCP_URL).resourceMetadataUrl).toBeNull();
    expect(readChallenge(headers('Basic realm="x"'), MCP_URL)).toEqual({ resourceMetadataUrl: null, scope: null });
  });
});

describe('which resource is sent (RFC 8707) and whose credential it is', () => {
  it('a resource covers the MCP URL at or under its path, on the same origin', () => {
    expect(resourceCovers('http://host:4200', 'http://host:4200/mcp')).toBe(true);
    expect(resourceCovers('https://mcp.example/mcp', 'https://mcp.example/mcp')).toBe(true);
    expect(resourceCovers('https://mcp.example/api', 'https://mcp.example/mcp')).toBe(false);
    expect(resourceCovers('https://other.example', 'https://mcp.example/mcp')).toBe(false);
    expect(resourceCovers('https://mcp.example/?x=1', 'https://mcp.example/mcp')).toBe(false);
  });
  it('a refresh token stored with the origin as its resource still belongs to that server', () => {
    expect(refreshBelongsTo({ resource: 'http://host:4200', token_endpoint: null }, 'http://host:4200')).toBe(true);
    expect(refreshBelongsTo({ resource: 'http://host:4200', token_endpoint: null }, 'http://other:4200')).toBe(false);
  });
});

const MCP = 'https://mcp.example/mcp';
const found = (over: Partial<Discovery> = {}): Discovery => ({
  mcpUrl: MCP,
  challenge: { resourceMetadataUrl: null, scope: null },
  resourceMetadata: { resource: 'https://mcp.example' as WebUrl, authorization_servers: ['https://as.example/oidc'], scopes_supported: ['mcp:read', 'mcp:write'] },
  resourceMetadataUrl: 'https://mcp.example/.well-known/oauth-protected-resource',
  issuer: 'https://as.example/oidc',
  asMetadata: {
    issuer: 'https://as.example/oidc', token_endpoint: 'https://as.example/oidc/token', device_authorization_endpoint: 'https://as.example/oidc/device',
    revocation_endpoint: 'https://as.example/oidc/revoke', scopes_supported: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
  },
  asMetadataUrl: 'https://as.example/.well-known/openid-configuration/oidc',
  ...over,
});

describe('the endpoints a discovery yields', () => {
  it('metadata: its endpoints, the resource as the metadata names it, the resource scopes, the server scopes', () => {
    expect(endpointsOf(found(), 'https://mcp.example')).toEqual({
      issuer: 'https://as.example/oidc', deviceAuthorizationEndpoint: 'https://as.example/oidc/device', tokenEndpoint: 'https://as.example/oidc/token',
      resource: 'https://mcp.example', source: 'discovery', scopesSupported: ['mcp:read', 'mcp:write'], scopeSource: 'resource_metadata',
      serverScopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'], revocationEndpoint: 'https://as.example/oidc/revoke',
      tokenAuthMethods: null, revocationAuthMethods: null,
    });
  });
  it('the client authentication methods the metadata lists, for the token and the revocation endpoint', () => {
    const listed = found();
    listed.asMetadata = { ...listed.asMetadata, token_endpoint_auth_methods_supported: ['client_secret_basic'], revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'] };
    expect(endpointsOf(listed, 'https://mcp.example')).toMatchObject({ tokenAuthMethods: ['client_secret_basic'], revocationAuthMethods: ['none', 'client_secret_post'] });
  });
  it('the challenge\'s scope comes before the metadata\'s list', () => {
    expect(endpointsOf(found({ challenge: { resourceMetadataUrl: null, scope: 'mcp:read' } }), 'https://mcp.example'))
      .toMatchObject({ scopesSupported: ['mcp:read'], scopeSource: 'challenge' });
  });
  it('the built-in paths only when the server publishes no metadata at all, with a note that says so', () => {
    const e = endpointsOf(found({ resourceMetadata: null, resourceMetadataUrl: null, asMetadata: null, asMetadataUrl: null, issuer: 'https://mcp.example' }), 'https://mcp.example');
    expect(e).toMatchObject({ source: 'builtin', tokenEndpoint: 'https://mcp.example/api/oauth2/token', resource: MCP, scopesSupported: null });
    expect(e.note).toBe(`${noMetadataText(MCP)}; using AgentStack's built-in endpoints on https://mcp.example`);
  });
  it('resource metadata for another resource stops discovery naming both; no built-in path and no AS metadata is fetched', async () => {
    const asked: string[] = [];
    const fetchStub = (async (input: string | URL) => {
      const url = String(input);
      asked.push(url);
      if (url.endsWith('/.well-known/oauth-protected-resource/mcp')) return Response.json({ resource: 'https://other.example/mcp', authorization_servers: ['https://as.example'] });
      return new Response(null, { status: url.endsWith('/mcp') ? 401 : 404 });
    }) as typeof fetch;
    await expect(discover('https://h.example', { fetch: fetchStub })).rejects.toThrow(/https:\/\/other\.example\/mcp.*does not cover https:\/\/h\.example\/mcp/);
    expect(asked.some((u) => u.includes('as.example') || u.includes('/api/oauth2/'))).toBe(false);
  });

  it('resource metadata that names an authorization server without metadata stops: no silent fallback', () => {
    expect(() => endpointsOf(found({ asMetadata: null, asMetadataUrl: null }), 'https://mcp.example')).toThrow(/names the authorization server https:\/\/as\.example\/oidc, but it publishes no OAuth metadata/);
  });
  it('an authorization server without the device grant: no device endpoint, and the sign-in says to use Connect', () => {
    const { device_authorization_endpoint: _d, ...md } = found().asMetadata!;
    const e = endpointsOf(found({ asMetadata: md }), 'https://mcp.example');
    expect(e.deviceAuthorizationEndpoint).toBeUndefined();
    expect(() => requireDeviceGrant(e)).toThrow(/does not offer device sign-in \(RFC 8628\); use Connect/);
  });
  it('an endpoint that is not https is refused; a bad revocation endpoint only means none', () => {
    expect(() => endpointsOf(found({ asMetadata: { ...found().asMetadata, token_endpoint: 'http://as.example/token' } }), 'https://mcp.example')).toThrow(/token_endpoint that is not https/);
    expect(endpointsOf(found({ asMetadata: { ...found().asMetadata, revocation_endpoint: 'http://as.example/r' } }), 'https://mcp.example').revocationEndpoint).toBeUndefined();
  });
});

describe('which scopes a sign-in asks for', () => {
  const offer = { scopesSupported: ['mcp:read', 'mcp:write'], serverScopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'], source: 'discovery' as const };
  it('offline_access is added when the authorization server lists it, never otherwise', () => {
    expect(resolveScopes({ preset: 'full' }, offer)).toBe('offline_access mcp:read mcp:write');
    expect(resolveScopes({ preset: 'full' }, { ...offer, serverScopes: ['mcp:read', 'mcp:write'] })).toBe('mcp:read mcp:write');
    expect(resolveScopes({ preset: 'full' }, { ...offer, serverScopes: null })).toBe('mcp:read mcp:write');
  });
  it('--scopes may name offline_access when the authorization server offers it', () => {
    expect(resolveScopes({ scopes: ['mcp:read', 'offline_access'] }, offer)).toBe('offline_access mcp:read');
    expect(() => resolveScopes({ scopes: ['mcp:admin'] }, offer)).toThrow(/does not offer the scope "mcp:admin"/);
  });
  it('the challenge\'s scope is what is asked for', () => {
    expect(resolveScopes({ preset: 'full' }, { ...offer, scopesSupported: ['mcp:read'] })).toBe('offline_access mcp:read');
  });
  it('neither metadata lists scopes: none are sent (offline_access only when offered); the built-in lists only without any metadata', () => {
    expect(resolveScopes({ preset: 'full' }, { scopesSupported: null, serverScopes: null, source: 'discovery' })).toBe('');
    expect(resolveScopes({ preset: 'full' }, { scopesSupported: null, serverScopes: ['offline_access'], source: 'discovery' })).toBe('offline_access');
    expect(resolveScopes({ preset: 'readonly' }, { scopesSupported: null, source: 'builtin' })).toMatch(/^openid offline_access profile:read/);
  });
  it('presets map onto URI-style scopes by their words', () => {
    const uri = { scopesSupported: ['api://agentstack-mcp/Tools.Read', 'api://agentstack-mcp/Tools.ReadWrite'], serverScopes: ['offline_access'], source: 'discovery' as const };
    expect(capabilityKind('api://agentstack-mcp/Tools.ReadWrite')).toBe('write');
    expect(capabilityKind('api://agentstack-mcp/Tools.Read')).toBe('read');
    expect(resolveScopes({ preset: 'readonly' }, uri)).toBe('offline_access api://agentstack-mcp/Tools.Read');
    expect(resolveScopes({ preset: 'builder' }, uri)).toBe('offline_access api://agentstack-mcp/Tools.Read api://agentstack-mcp/Tools.ReadWrite');
  });
});
