/**
 * What a server hands us is data, read once at the boundary (platform/net/webUrl.ts): a resource, an endpoint or an
 * issuer is a canonical absolute http(s) URL without user info or fragment, bounded in length; text another program
 * would read differently (quotes of every kind, controls, line breaks, backslashes) is refused. A token's `aud` that
 * is not an http(s) URL is a plain string and names no other server. Plain http to loopback only for an MCP server
 * that is itself plain http on loopback.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_WEB_URL_LENGTH, httpOriginOf, readIdentifier, readWebUrl, type WebUrl } from '../../lib/platform/net/webUrl.js';
import { readResourceMetadata } from '../../lib/agentstack/auth/resourceMetadata.js';
import { discover, endpointsOf, readChallenge, type Discovery } from '../../lib/agentstack/auth/discovery.js';
import { deleteRefreshSecrets, keychainKey, loadRefreshToken, saveRefresh } from '../../lib/agentstack/credentials/credentialStore.js';
import { baseUrlFromMcpUrl, mcpUrlFor, parseBaseUrl } from '../../lib/agentstack/server/baseUrl.js';
import { credentialsBelongTo } from '../../lib/agentstack/mcpJson/entry.js';
import type { Keychain, SecretKey } from '../../lib/platform/keychain/types.js';
import { tempDir } from '../helpers/repo.js';

/** PowerShell reads U+2018-U+201B as single quotes: this resource closes the script's string and runs calc. */
const HOSTILE = 'http://127.0.0.1:4100/x\u2019;Start-Process calc.exe;\u2019/../mcp';
const MCP = 'http://127.0.0.1:4100/mcp';

describe('readWebUrl: one reading of a URL a server hands us', () => {
  it('keeps the canonical href: lower-case scheme and host, dot segments resolved, an origin without a path as written', () => {
    expect(readWebUrl('HTTPS://MCP.Example:443/a/./b/../mcp')).toMatchObject({ ok: true, url: 'https://mcp.example/a/mcp' });
    expect(readWebUrl('https://mcp.example')).toMatchObject({ ok: true, url: 'https://mcp.example' });
    expect(readWebUrl('https://mcp.example/')).toMatchObject({ ok: true, url: 'https://mcp.example/' });
    expect(readWebUrl('https://bücher.example/mcp')).toMatchObject({ ok: true, url: 'https://xn--bcher-kva.example/mcp' });
    expect(readWebUrl('https://mcp.example/a%20b')).toMatchObject({ ok: true, url: 'https://mcp.example/a%20b' });
  });
  it('refuses what another parser would read differently', () => {
    const cases: Array<[unknown, string]> = [
      [HOSTILE, 'unsafe_character'],
      ["http://h/x';calc;'/mcp", 'unsafe_character'],
      ['http://h/x"/mcp', 'unsafe_character'],
      ['http://h/x\u201c/mcp', 'unsafe_character'],
      ['http://h/x\n/mcp', 'unsafe_character'],
      ['http://h/x\t/mcp', 'unsafe_character'],
      ['http://h/x\u2028/mcp', 'unsafe_character'],
      [' http://h/mcp', 'unsafe_character'],
      ['http:\\\\h\\mcp', 'unsafe_character'],
      ['http://h/\u0000', 'unsafe_character'],
      ['http://h/x\uff07/mcp', 'unsafe_character'],
      ['http:h/mcp', 'not_url'],
      ['/mcp', 'not_url'],
      ['api://agentstack-mcp', 'not_http'],
      ['javascript:alert(1)', 'not_http'],
      ['https://user:pw@h/mcp', 'userinfo'],
      ['https://@h/mcp', 'userinfo'],
      ['https://h/mcp#frag', 'fragment'],
      ['https://h/mcp#', 'fragment'],
      [`https://h/${'a'.repeat(MAX_WEB_URL_LENGTH)}`, 'too_long'],
      [42, 'not_text'],
    ];
    for (const [value, problem] of cases) expect(readWebUrl(value), String(value)).toEqual({ ok: false, problem });
  });
  it('an aud or a scope that is not an http(s) URL is a plain string, and names no origin', () => {
    for (const aud of ['api://agentstack-mcp', 'mcp:read mcp:write', 'urn:example:mcp', 'agentstack']) {
      expect(readIdentifier(aud)).toEqual({ kind: 'string', value: aud });
      expect(httpOriginOf(aud)).toBeNull();
    }
    expect(httpOriginOf('https://MCP.example/mcp')).toBe('https://mcp.example');
  });
});

describe('the RFC 9728 resource is read at the boundary', () => {
  it('a resource with quotes PowerShell reads as its own is refused, though it covers the MCP URL once parsed', () => {
    const read = readResourceMetadata({ resource: HOSTILE, authorization_servers: ['http://127.0.0.1:4100'] }, MCP);
    expect(read.ok).toBe(false);
  });
  it('discovery refuses it, and its message does not carry the text as sent', async () => {
    const fetchStub = (async (input: string | URL) => {
      const url = String(input);
      if (url.endsWith('/.well-known/oauth-protected-resource/mcp')) return Response.json({ resource: HOSTILE, authorization_servers: ['http://127.0.0.1:4100'] });
      if (url.includes('/.well-known/oauth-authorization-server')) return Response.json({ issuer: 'http://127.0.0.1:4100', token_endpoint: 'http://127.0.0.1:4100/token', device_authorization_endpoint: 'http://127.0.0.1:4100/device' });
      return new Response(null, { status: url.endsWith('/mcp') ? 401 : 404 });
    }) as typeof fetch;
    const error = await discover('http://127.0.0.1:4100', { fetch: fetchStub }).then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/names a resource that holds a quote/);
    expect(error?.message).not.toContain('Start-Process');
  });
  it('a resource is kept as its canonical href', () => {
    const read = readResourceMetadata({ resource: 'HTTP://127.0.0.1:4100/a/../mcp' }, MCP);
    expect(read).toMatchObject({ ok: true, metadata: { resource: MCP } });
  });
  it('authorization_servers and the issuer are read the same way', async () => {
    const fetchStub = (async (input: string | URL) => {
      const url = String(input);
      if (url.endsWith('/.well-known/oauth-protected-resource/mcp')) return Response.json({ resource: MCP, authorization_servers: ['http://127.0.0.1:4100/o\u2019x'] });
      return new Response(null, { status: url.endsWith('/mcp') ? 401 : 404 });
    }) as typeof fetch;
    await expect(discover('http://127.0.0.1:4100', { fetch: fetchStub })).rejects.toThrow(/authorization server/);
  });
});

describe('the keychain key names the server by its canonical href, never the raw text', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => { dir = tempDir('agentstack-ids-'); });
  afterEach(() => dir.cleanup());

  it('a record whose resource could not be a canonical URL is not written into a key', async () => {
    const keys: SecretKey[] = [];
    const keychain: Keychain = {
      name: 'Memory Keychain',
      unavailable: () => null,
      async put(key) { keys.push(key); },
      async get() { return 'rt-0123456789abcdef'; },
      async delete() { return true; },
    };
    const paths = { dir: dir.path, refresh: join(dir.path, 'agentstack-refresh') };
    const record = { refresh_token: 'rt-0123456789abcdef', resource: HOSTILE, token_endpoint: 'http://127.0.0.1:4100/token' };
    await saveRefresh({ env: {}, keychain, managed: { path: '/nonexistent/managed.json' }, paths, previous: null, record }).catch(() => null);
    for (const key of keys) expect(key.server).not.toMatch(/[\u2018-\u201f'"\s]/);
    expect(() => keychainKey(HOSTILE, paths)).toThrow();
    expect(keys).toEqual([]);
    expect(keychainKey('HTTP://127.0.0.1:4100/a/../mcp', paths).server).toBe(MCP);
  });
});

describe('a record an older version wrote with such a server is never handed to a keychain backend', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => { dir = tempDir('agentstack-ids-'); });
  afterEach(() => dir.cleanup());

  it('neither read, nor replaced, nor deleted under that key', async () => {
    const seen: string[] = [];
    const keychain: Keychain = {
      name: 'Memory Keychain',
      unavailable: () => null,
      async put(key) { seen.push(key.server); },
      async get(key) { seen.push(key.server); return 'rt-0123456789abcdef'; },
      async delete(key) { seen.push(key.server); return true; },
    };
    const paths = { dir: dir.path, refresh: join(dir.path, 'agentstack-refresh') };
    const stored = { resource: MCP, token_endpoint: 'http://127.0.0.1:4100/token', store: 'keychain' as const, keychain: 'Memory Keychain', keychain_server: HOSTILE, keychain_account: dir.path };
    const options = { env: {}, keychain, managed: { path: '/nonexistent/managed.json' } };
    await expect(loadRefreshToken(stored, options)).rejects.toThrow();
    await saveRefresh({ ...options, paths, previous: stored, record: { refresh_token: 'rt-0123456789abcdef', resource: MCP, token_endpoint: 'http://127.0.0.1:4100/token' } });
    await deleteRefreshSecrets(stored, MCP, { ...options, paths });
    expect(seen.length).toBeGreaterThan(0);
    for (const server of seen) expect(server).toBe(MCP);
  });
});

describe('the base URL the person sets is read the same way, so its MCP URL can always name a keychain entry', () => {
  it('a base URL with a quote, a tab or a backslash is refused; an mcp.json url with one names no base', () => {
    for (const bad of ["https://h.example/a'b", 'https://h.example/a\tb', 'https://h.example/a b', 'https://h.example/a\u2019b', 'https://h.example/a\\b']) {
      expect(() => parseBaseUrl(bad), bad).toThrow(/quote/);
      expect(baseUrlFromMcpUrl(`${bad}/mcp`), bad).toBeNull();
    }
    expect(parseBaseUrl('  https://h.example/a%20b/mcp ')).toBe('https://h.example/a%20b');
    expect(() => keychainKey(mcpUrlFor(parseBaseUrl('HTTPS://H.example/x/')), { dir: '/tmp/x' })).not.toThrow();
  });
});

describe('plain http to loopback only for an MCP server that is plain http on loopback', () => {
  const headers = (value: string) => new Headers({ 'www-authenticate': value });
  it('the challenge\'s resource_metadata', () => {
    const challenge = 'Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource"';
    expect(readChallenge(headers(challenge), 'https://mcp.example/mcp').resourceMetadataUrl).toBeNull();
    expect(readChallenge(headers(challenge), 'http://127.0.0.1:4100/mcp').resourceMetadataUrl).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource');
  });
  it('the authorization server an https MCP server names', async () => {
    const asked: string[] = [];
    const fetchStub = (async (input: string | URL) => {
      const url = String(input);
      asked.push(url);
      if (url.endsWith('/.well-known/oauth-protected-resource/mcp')) return Response.json({ resource: 'https://mcp.example/mcp', authorization_servers: ['http://localhost:8080'] });
      return new Response(null, { status: url.endsWith('/mcp') ? 401 : 404 });
    }) as typeof fetch;
    await expect(discover('https://mcp.example', { fetch: fetchStub })).rejects.toThrow(/not https/);
    expect(asked.some((u) => u.startsWith('http://localhost'))).toBe(false);
  });
  it('the authorization server\'s endpoints', () => {
    const found: Discovery = {
      mcpUrl: 'https://mcp.example/mcp',
      challenge: { resourceMetadataUrl: null, scope: null },
      resourceMetadata: { resource: 'https://mcp.example/mcp' as WebUrl, authorization_servers: ['https://as.example'] },
      resourceMetadataUrl: 'https://mcp.example/.well-known/oauth-protected-resource/mcp',
      issuer: 'https://as.example',
      asMetadata: { issuer: 'https://as.example', token_endpoint: 'http://127.0.0.1:8080/token', device_authorization_endpoint: 'https://as.example/device' },
      asMetadataUrl: 'https://as.example/.well-known/oauth-authorization-server',
    };
    expect(() => endpointsOf(found, 'https://mcp.example')).toThrow(/token_endpoint that is not https/);
    const local = { ...found, mcpUrl: 'http://127.0.0.1:4100/mcp', resourceMetadata: { resource: 'http://127.0.0.1:4100/mcp' as WebUrl } };
    expect(endpointsOf(local, 'http://127.0.0.1:4100').tokenEndpoint).toBe('http://127.0.0.1:8080/token');
  });
});

describe('a token whose aud is not an http(s) URL names no other server', () => {
  const jwt = (claims: Record<string, unknown>) => `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
  const entry = (aud: unknown) => ({ url: 'http://127.0.0.1:4100/mcp', headers: { Authorization: `Bearer ${jwt({ aud, exp: 4102444800 })}` } });
  it('api://, a space-separated scope string and a URN belong to the entry\'s server', () => {
    for (const aud of ['api://agentstack-mcp', 'mcp:read mcp:write', 'urn:example:mcp', ['api://agentstack-mcp', 'urn:x']]) {
      expect(credentialsBelongTo(entry(aud), 'http://127.0.0.1:4100'), JSON.stringify(aud)).toBe(true);
    }
  });
  it('an http(s) aud still names its server', () => {
    expect(credentialsBelongTo(entry('https://other.example/mcp'), 'http://127.0.0.1:4100')).toBe(false);
    expect(credentialsBelongTo(entry(['api://x', 'http://127.0.0.1:4100/mcp']), 'http://127.0.0.1:4100')).toBe(true);
  });
});
