import { describe, expect, it } from 'vitest';
import {
  applyBearer, chooseBaseUrl, credentialsBelongTo, leanEntry, normalizeMcpConfig, parseProjectId,
} from '../../lib/agentstack/mcpJson/entry.js';
import { bearerOf, isRealBearer, tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { DEFAULT_BASE_URL } from '../../lib/agentstack/server/baseUrl.js';

const STAGING = 'https://staging.agentstack.tech';

describe('the lean agentstack entry', () => {
  it('strips tools, baseUrl, auth, notes and placeholder headers from a bloated entry', () => {
    const config = {
      mcpServers: {
        agentstack: {
          type: 'streamable-http',
          url: 'https://agentstack.tech/mcp',
          baseUrl: 'https://agentstack.tech',
          tools: ['agentstack.execute'],
          auth: { type: 'oauth' },
          notes: 'set by the old plugin',
          _comment: 'x',
          headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}', 'X-Project-ID': '1', 'X-API-Key': 'k-123' },
        },
      },
    };
    const { config: out, changed } = normalizeMcpConfig(config);
    expect(changed).toBe(true);
    expect(out.mcpServers).toEqual({
      agentstack: { type: 'streamable-http', url: 'https://agentstack.tech/mcp', headers: { 'X-API-Key': 'k-123' } },
    });
  });

  it.each([
    ['', false], ['Bearer ', false], ['Bearer', false], ['Bearer ${AGENTSTACK_ACCESS_TOKEN}', false],
    ['Bearer AGENTSTACK_ACCESS_TOKEN', false], ['Bearer ${env:X}', false], ['Bearer <token>', false], ['Basic abc', false],
    ['Bearer eyJ.abc.def', true], ['bearer tok123', true],
  ])('isRealBearer(%j) = %s', (value, expected) => {
    expect(isRealBearer(value)).toBe(expected);
  });

  it('drops X-API-Key once a Bearer exists and keeps a valid project pin as a string', () => {
    const entry = leanEntry({ headers: { 'X-API-Key': 'k', 'x-project-id': 42 } }, { baseUrl: STAGING, token: 'tok' });
    expect(entry).toEqual({ type: 'http', url: `${STAGING}/mcp`, headers: { Authorization: 'Bearer tok', 'X-Project-ID': '42' } });
  });

  it.each([[1, null], ['1', null], [0, null], [-5, null], ['2.5', null], ['abc', null], [2, 2], ['17', 17], [' 9 ', 9]])(
    'parseProjectId(%j) = %j',
    (value, expected) => {
      expect(parseProjectId(value)).toBe(expected);
    },
  );

  it('defaults type to http and keeps an existing streamable-http', () => {
    expect(leanEntry({ type: 'sse' }, { baseUrl: STAGING }).type).toBe('http');
    expect(leanEntry({ type: 'streamable-http' }, { baseUrl: STAGING }).type).toBe('streamable-http');
  });
});

describe('which server', () => {
  it('AGENTSTACK_BASE_URL wins, then a valid entry url, then the default', () => {
    expect(chooseBaseUrl({ url: `${STAGING}/mcp` }, 'http://127.0.0.1:9')).toBe('http://127.0.0.1:9');
    expect(chooseBaseUrl({ url: `${STAGING}/mcp` })).toBe(STAGING);
    expect(chooseBaseUrl({ url: 'http://evil.example/mcp' })).toBe(DEFAULT_BASE_URL);
    expect(chooseBaseUrl({ url: 'https://x.tech/not-mcp' })).toBe(DEFAULT_BASE_URL);
    expect(chooseBaseUrl(undefined)).toBe(DEFAULT_BASE_URL);
  });

  it('keeps a static OAuth client (`auth` with CLIENT_ID, as Cursor documents it) whole, in place; drops it with the credentials when the server changes', () => {
    const auth = { CLIENT_ID: 'my-client', CLIENT_SECRET: 'my-secret', scopes: ['projects:read'] };
    const config = { mcpServers: { agentstack: { url: `${DEFAULT_BASE_URL}/mcp`, auth, tools: ['x'], headers: { Authorization: 'Bearer tok123' } } } };
    const out = normalizeMcpConfig(config).config as any;
    expect(out.mcpServers.agentstack).toEqual({ url: `${DEFAULT_BASE_URL}/mcp`, auth, headers: { Authorization: 'Bearer tok123' }, type: 'http' });
    expect(Object.keys(out.mcpServers.agentstack)).toEqual(['url', 'auth', 'headers', 'type']);
    expect(normalizeMcpConfig(out).changed).toBe(false);
    expect(applyBearer(out, { token: 'fresh', baseUrl: DEFAULT_BASE_URL }).config.mcpServers).toMatchObject({ agentstack: { auth } });
    expect((normalizeMcpConfig(config, { envBaseUrl: STAGING }).config as any).mcpServers.agentstack.auth).toBeUndefined();
    const noClient = { mcpServers: { agentstack: { url: `${DEFAULT_BASE_URL}/mcp`, auth: { CLIENT_ID: '' } } } };
    expect((normalizeMcpConfig(noClient).config as any).mcpServers.agentstack.auth).toBeUndefined();
  });

  it('credentials never follow a change of server: a Bearer or API key for another server is dropped', () => {
    const entry = (url?: string) => ({ mcpServers: { agentstack: { ...(url ? { url } : {}), headers: { Authorization: 'Bearer for-the-old-server', 'X-Project-ID': '7' } } } });
    const moved = normalizeMcpConfig(entry(`${DEFAULT_BASE_URL}/mcp`), { envBaseUrl: STAGING }).config as any;
    expect(moved.mcpServers.agentstack).toEqual({ url: `${STAGING}/mcp`, headers: { 'X-Project-ID': '7' }, type: 'http' });
    const fromElsewhere = normalizeMcpConfig(entry('http://evil.example/mcp')).config as any;
    expect(fromElsewhere.mcpServers.agentstack.url).toBe(`${DEFAULT_BASE_URL}/mcp`);
    expect(bearerOf(fromElsewhere)).toBeNull();
    const apiKey = { mcpServers: { agentstack: { url: `${DEFAULT_BASE_URL}/mcp`, headers: { 'X-API-Key': 'key-for-prod' } } } };
    expect((normalizeMcpConfig(apiKey, { envBaseUrl: STAGING }).config as any).mcpServers.agentstack.headers).toBeUndefined();
    // Same server (trailing slash), or no URL to compare: the credential stays.
    expect(bearerOf(normalizeMcpConfig(entry(`${STAGING}/mcp/`), { envBaseUrl: STAGING }).config)).toBe('for-the-old-server');
    expect(bearerOf(normalizeMcpConfig(entry()).config)).toBe('for-the-old-server');
    // Signing in to the new server writes its own Bearer there.
    expect(bearerOf(applyBearer(entry(`${DEFAULT_BASE_URL}/mcp`), { token: 'fresh', baseUrl: STAGING }).config)).toBe('fresh');
  });

  it('a JWT Bearer stays only with the server its audience names; an entry without a url means the default server', () => {
    const jwt = (aud: unknown) => `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify({ aud })).toString('base64url')}.sig`;
    const entry = (url: string | undefined, token: string) => ({ mcpServers: { agentstack: { ...(url ? { url } : {}), headers: { Authorization: `Bearer ${token}` } } } });
    expect(credentialsBelongTo(entry(`${STAGING}/mcp`, jwt(`${DEFAULT_BASE_URL}/mcp`)).mcpServers.agentstack, STAGING)).toBe(false);
    expect(credentialsBelongTo(entry(`${STAGING}/mcp`, jwt([`${STAGING}/mcp`, 'other'])).mcpServers.agentstack, STAGING)).toBe(true);
    expect(credentialsBelongTo(entry(`${STAGING}/mcp`, jwt('not-a-url')).mcpServers.agentstack, STAGING)).toBe(true);
    expect(credentialsBelongTo(entry(undefined, 'opaque-token-123').mcpServers.agentstack, STAGING)).toBe(false);
    expect(credentialsBelongTo(entry(undefined, 'opaque-token-123').mcpServers.agentstack, DEFAULT_BASE_URL)).toBe(true);
    expect(bearerOf(normalizeMcpConfig(entry(`${STAGING}/mcp`, jwt(`${DEFAULT_BASE_URL}/mcp`))).config)).toBeNull();
  });

  it('a Bearer we issued stays with the server we recorded, JWT or opaque; a Bearer we did not record is judged without the record', () => {
    const entry = (token: string) => ({ url: `${STAGING}/mcp`, headers: { Authorization: `Bearer ${token}` } });
    const forDefault = { serverUrl: `${DEFAULT_BASE_URL}/mcp` };
    expect(credentialsBelongTo(entry('opaque-token-123'), STAGING, forDefault)).toBe(false);
    expect(credentialsBelongTo(entry('opaque-token-123'), STAGING, { ...forDefault, fingerprint: tokenFingerprint('opaque-token-123') })).toBe(false);
    expect(credentialsBelongTo(entry('opaque-token-123'), STAGING, { ...forDefault, fingerprint: tokenFingerprint('another-token') })).toBe(true);
    expect(credentialsBelongTo(entry('opaque-token-123'), STAGING, { serverUrl: `${STAGING}/mcp` })).toBe(true);
    expect(credentialsBelongTo(entry('opaque-token-123'), STAGING, null)).toBe(true);
    // An API key was never issued by us: the record says nothing about it.
    expect(credentialsBelongTo({ url: `${STAGING}/mcp`, headers: { 'X-API-Key': 'k-123' } }, STAGING, forDefault)).toBe(true);
    const config = { mcpServers: { agentstack: entry('opaque-token-123') } };
    expect(bearerOf(normalizeMcpConfig(config, { issued: forDefault }).config)).toBeNull();
    expect(bearerOf(normalizeMcpConfig(config, { issued: { serverUrl: `${STAGING}/mcp` } }).config)).toBe('opaque-token-123');
  });

  it('a hand-set staging URL survives normalization', () => {
    const config = { mcpServers: { agentstack: { type: 'http', url: `${STAGING}/mcp`, headers: { Authorization: 'Bearer t' } } } };
    expect(normalizeMcpConfig(config)).toEqual({ config, changed: false });
  });
});

describe('normalize and apply', () => {
  it('adds nothing when there is no agentstack entry', () => {
    const config = { mcpServers: { other: { command: 'x' } }, theme: 'dark' };
    expect(normalizeMcpConfig(config)).toEqual({ config, changed: false });
    expect(normalizeMcpConfig({})).toEqual({ config: {}, changed: false });
  });

  it('never touches other servers or top-level keys, and keeps their order', () => {
    const config = {
      first: 1,
      mcpServers: { a: { url: 'x', tools: ['t'] }, agentstack: { url: 'https://agentstack.tech/mcp', tools: [] }, z: { command: 'y' } },
      last: { nested: true },
    };
    const { config: out } = normalizeMcpConfig(config);
    expect(Object.keys(out)).toEqual(['first', 'mcpServers', 'last']);
    expect(Object.keys(out.mcpServers as object)).toEqual(['a', 'agentstack', 'z']);
    expect((out.mcpServers as Record<string, unknown>).a).toEqual({ url: 'x', tools: ['t'] });
    expect(config.mcpServers.agentstack.tools).toEqual([]); // input not mutated
  });

  it('applyBearer creates the entry at the end, and is a no-op when already applied', () => {
    const config = { mcpServers: { other: { url: 'https://o/mcp' } } };
    const first = applyBearer(config, { token: 'abc', baseUrl: STAGING, projectId: 7 });
    expect(first.changed).toBe(true);
    expect(Object.keys(first.config.mcpServers as object)).toEqual(['other', 'agentstack']);
    expect(bearerOf(first.config)).toBe('abc');
    expect(applyBearer(first.config, { token: 'abc', baseUrl: STAGING, projectId: 7 }).changed).toBe(false);
    const unpinned = applyBearer(first.config, { token: 'abc', baseUrl: STAGING, projectId: null });
    expect((unpinned.config.mcpServers as any).agentstack.headers).toEqual({ Authorization: 'Bearer abc' });
  });

  it('applyBearer adds mcpServers to a file without it and refuses a malformed token', () => {
    expect(applyBearer({ x: 1 }, { token: 't', baseUrl: STAGING }).config).toEqual({
      x: 1, mcpServers: { agentstack: { type: 'http', url: `${STAGING}/mcp`, headers: { Authorization: 'Bearer t' } } },
    });
    expect(() => applyBearer({}, { token: '', baseUrl: STAGING })).toThrow(/empty or malformed/);
    expect(() => applyBearer({}, { token: 'a b', baseUrl: STAGING })).toThrow(/empty or malformed/);
  });

  it('keeps the order of the entry keys a person chose', () => {
    const config = { mcpServers: { agentstack: { headers: { Authorization: 'Bearer t' }, url: `${STAGING}/mcp`, type: 'http' } } };
    expect(normalizeMcpConfig(config).changed).toBe(false);
  });
});
