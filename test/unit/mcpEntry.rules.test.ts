/**
 * The mcp.json entry rules, exactly: what counts as a real Bearer, a valid project pin, whose credentials an entry
 * holds, how the lean entry is built (trimmed values, key order kept, new keys last), and the typed refusals.
 */
import { describe, expect, it } from 'vitest';
import { applyBearer, credentialsBelongTo, leanEntry, normalizeMcpConfig, parseProjectId } from '../../lib/agentstack/mcpJson/entry.js';
import { bearerOf, isRealBearer } from '../../lib/agentstack/mcpJson/credential.js';

const BASE = 'https://agentstack.tech';
const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const config = (entry: unknown) => ({ mcpServers: { agentstack: entry } });

describe('isRealBearer', () => {
  it('a Bearer with one real token, the scheme in any case, spaces around and between', () => {
    for (const value of ['Bearer abc', 'bearer abc', 'Bearer  abc', ' Bearer abc ', 'Bearer abc\n', 'Bearer x<y>', 'Bearer <y>x']) {
      expect(isRealBearer(value), JSON.stringify(value)).toBe(true);
    }
  });

  it('not a Bearer: another scheme or text before it, two tokens, a placeholder, or not a string', () => {
    for (const value of ['xBearer abc', 'Token Bearer abc', 'Bearer abc def', 'Bearer', 'Bearer ', 'Bearer ${env:T}', 'Bearer <token>', 'Bearer AGENTSTACK_ACCESS_TOKEN', 5, null]) {
      expect(isRealBearer(value), JSON.stringify(value)).toBe(false);
    }
  });
});

describe('parseProjectId', () => {
  it('an integer above 1, as a number or a string of up to 15 digits', () => {
    expect(parseProjectId(42)).toBe(42);
    expect(parseProjectId(' 42 ')).toBe(42);
    expect(parseProjectId('123456789012345')).toBe(123456789012345);
  });

  it('anything else is no pin: 1, 0, signs, decimals, exponents, hex, 16 digits, other types', () => {
    for (const value of [1, '1', 0, '-5', '+12', '12.0', 12.5, '1e3', '0x10', '1234567890123456', '', 'abc', null, undefined, {}, ['42']]) {
      expect(parseProjectId(value), JSON.stringify(value)).toBeNull();
    }
  });
});

describe('credentialsBelongTo', () => {
  it('no entry (or not an object) holds no credentials for another server', () => {
    for (const entry of [undefined, null, 'x', 5]) expect(credentialsBelongTo(entry, 'https://staging.agentstack.tech'), String(entry)).toBe(true);
  });

  it('a JWT whose aud names another origin does not belong, whatever spaces surround the Bearer', () => {
    const token = jwt({ aud: ['https://other.example/mcp'] });
    expect(credentialsBelongTo({ url: `${BASE}/mcp`, headers: { Authorization: ` Bearer ${token} ` } }, BASE)).toBe(false);
    expect(credentialsBelongTo({ url: `${BASE}/mcp`, headers: { authorization: `Bearer ${jwt({ aud: `${BASE}/mcp` })}` } }, BASE)).toBe(true);
  });

  it('aud values that are not URL strings say nothing', () => {
    const token = jwt({ aud: [['https://other.example/mcp'], 5, null, 'not a url'] });
    expect(credentialsBelongTo({ url: `${BASE}/mcp`, headers: { Authorization: `Bearer ${token}` } }, BASE)).toBe(true);
  });
});

describe('leanEntry', () => {
  it('keeps the existing key order and puts new keys last', () => {
    expect(Object.keys(leanEntry({ url: `${BASE}/mcp` }, { baseUrl: BASE }))).toEqual(['url', 'type']);
    expect(Object.keys(leanEntry({ url: `${BASE}/mcp`, type: 'http' }, { baseUrl: BASE }))).toEqual(['url', 'type']);
    const entry = leanEntry({ headers: { 'X-Project-ID': '7' }, url: `${BASE}/mcp` }, { baseUrl: BASE, token: 'abc' });
    expect(Object.keys(entry)).toEqual(['headers', 'url', 'type']);
    expect(Object.keys(entry.headers as object)).toEqual(['X-Project-ID', 'Authorization']);
    const pinned = leanEntry({ url: `${BASE}/mcp`, headers: { Authorization: 'Bearer t' } }, { baseUrl: BASE, projectId: 7 });
    expect(Object.keys(pinned.headers as object)).toEqual(['Authorization', 'X-Project-ID']);
  });

  it('stores a kept Bearer trimmed, and never a blank X-API-Key', () => {
    expect(leanEntry({ url: `${BASE}/mcp`, headers: { Authorization: '  Bearer abc-real-token  ' } }, { baseUrl: BASE }).headers).toEqual({ Authorization: 'Bearer abc-real-token' });
    expect(leanEntry({ url: `${BASE}/mcp`, headers: { 'X-API-Key': '   ' } }, { baseUrl: BASE })).toEqual({ type: 'http', url: `${BASE}/mcp` });
    expect(leanEntry({ url: `${BASE}/mcp`, headers: { 'x-api-key': 'ak_live_1' } }, { baseUrl: BASE }).headers).toEqual({ 'X-API-Key': 'ak_live_1' });
  });

  it('a header literally named "undefined" is not taken for Authorization', () => {
    expect(leanEntry({ url: `${BASE}/mcp`, headers: { undefined: 'Bearer abc' } }, { baseUrl: BASE })).toEqual({ type: 'http', url: `${BASE}/mcp` });
  });

  it('pins only a valid project: 1 is refused even when asked for', () => {
    expect(leanEntry({}, { baseUrl: BASE, token: 't', projectId: 1 }).headers).toEqual({ Authorization: 'Bearer t' });
    expect(leanEntry({}, { baseUrl: BASE, token: 't', projectId: 7 }).headers).toEqual({ Authorization: 'Bearer t', 'X-Project-ID': '7' });
    expect(leanEntry({ headers: { 'X-Project-ID': '7' } }, { baseUrl: BASE, token: 't', projectId: null }).headers).toEqual({ Authorization: 'Bearer t' });
  });
});

describe('applyBearer, normalizeMcpConfig and bearerOf', () => {
  it('refuses an empty or malformed token with invalid_response', () => {
    for (const token of ['', 'a b', 'a\n']) {
      expect(() => applyBearer({}, { token, baseUrl: BASE })).toThrow(expect.objectContaining({ code: 'invalid_response', message: 'The issued access token is empty or malformed' }));
    }
  });

  it('refuses an mcpServers that is not an object with malformed_file, naming it', () => {
    for (const servers of ['x', 5, [], null]) {
      expect(() => applyBearer({ mcpServers: servers }, { token: 't', baseUrl: BASE }), JSON.stringify(servers)).toThrow(expect.objectContaining({
        code: 'malformed_file', message: '"mcpServers" in mcp.json is not an object; fix it by hand, then try again',
      }));
    }
  });

  it('normalizing leaves a config without a usable agentstack entry as it is', () => {
    for (const c of [{}, { mcpServers: [] }, { mcpServers: { other: {} } }, config('x')]) expect(normalizeMcpConfig(c)).toEqual({ config: c, changed: false });
  });

  it('bearerOf returns the bare token, whatever the spaces and the scheme case', () => {
    expect(bearerOf(config({ headers: { Authorization: '  Bearer abc  ' } }))).toBe('abc');
    expect(bearerOf(config({ headers: { authorization: 'bearer   abc' } }))).toBe('abc');
    expect(bearerOf(config({ headers: { Authorization: 'Bearer ${env:T}' } }))).toBeNull();
    expect(bearerOf(config({ headers: 'Bearer abc' }))).toBeNull();
    expect(bearerOf({ mcpServers: 'x' })).toBeNull();
  });
});
