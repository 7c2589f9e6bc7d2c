import { describe, expect, it } from 'vitest';
import {
  REFRESH_WINDOW_MS, agentstackEntry, bearerOf, bearerToken, classifyCredential, headerValue, isRealApiKey, needsRefresh, needsSignIn, refusedView, tokenFingerprint,
} from '../../lib/agentstack/mcpJson/credential.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const config = (headers?: Record<string, string>) => ({ mcpServers: { other: { url: 'https://x/mcp' }, agentstack: { url: 'https://agentstack.tech/mcp', ...(headers ? { headers } : {}) } } });
const gate = (c: Record<string, unknown>, storedExpiresAt?: string) => classifyCredential({ config: c, storedExpiresAt, now: NOW });

describe('credential gate', () => {
  it('unsigned: no entry, or an entry without Authorization', () => {
    expect(gate({}).state).toBe('unsigned');
    expect(gate({ mcpServers: { other: {} } }).state).toBe('unsigned');
    expect(gate(config()).state).toBe('unsigned');
    expect(gate(config({ 'X-API-Key': '${env:KEY}' })).state).toBe('unsigned');
  });

  it('placeholder: ${...}, AGENTSTACK_ACCESS_TOKEN or an empty Bearer', () => {
    for (const value of ['Bearer ${env:AGENTSTACK_ACCESS_TOKEN}', 'Bearer AGENTSTACK_ACCESS_TOKEN', 'Bearer ', '', 'Bearer <token>']) {
      expect(gate(config({ Authorization: value })).state, value).toBe('placeholder');
    }
  });

  it('expired: the JWT exp passed, or (for an opaque token) the stored expires_at', () => {
    expect(gate(config({ Authorization: `Bearer ${jwt({ exp: NOW / 1000 - 1 })}` })).state).toBe('expired');
    expect(gate(config({ Authorization: 'Bearer opaque-token-123456' }), '2026-11-30T11:00:00Z').state).toBe('expired');
    // the JWT's own exp wins over a stale stored value
    expect(gate(config({ Authorization: `Bearer ${jwt({ exp: NOW / 1000 + 600 })}` }), '2026-11-30T11:00:00Z').state).toBe('ok');
  });

  it('null_caps: a user_api_key JWT with service_caps: null', () => {
    const g = gate(config({ Authorization: `Bearer ${jwt({ token_type: 'user_api_key', service_caps: null, exp: NOW / 1000 + 600 })}` }));
    expect(g.state).toBe('null_caps');
    expect(gate(config({ Authorization: `Bearer ${jwt({ token_type: 'user_api_key', service_caps: ['a'] })}` })).state).toBe('ok');
    expect(gate(config({ Authorization: `Bearer ${jwt({ token_type: 'user_api_key' })}` })).state).toBe('ok');
  });

  it('ok: a real Bearer (token and expiry exposed), or an X-API-Key', () => {
    const token = jwt({ sub: 'u', exp: NOW / 1000 + 3600 });
    const g = gate(config({ Authorization: `Bearer ${token}` }));
    expect(g).toMatchObject({ state: 'ok', token, expiresAtMs: NOW + 3600_000, apiKey: false });
    expect(gate(config({ 'X-API-Key': 'ak_live_123' }))).toMatchObject({ state: 'ok', apiKey: true, token: null });
  });

  it('refresh within 120 s of expiry or after it; sign-in for placeholder, expired and null_caps only', () => {
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW + 119_000 }, NOW)).toBe(true);
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW + 121_000 }, NOW)).toBe(false);
    expect(needsRefresh({ state: 'expired', expiresAtMs: NOW - 1 }, NOW)).toBe(true);
    expect(needsRefresh({ state: 'ok', expiresAtMs: null }, NOW)).toBe(false);
    expect(needsRefresh({ state: 'null_caps', expiresAtMs: NOW }, NOW)).toBe(false);
    expect(['unsigned', 'placeholder', 'expired', 'null_caps', 'ok'].filter((s) => needsSignIn(s as never))).toEqual(['placeholder', 'expired', 'null_caps']);
  });
});

describe('the credential view primitives', () => {
  it('headerValue: names are case-insensitive; a non-object has none', () => {
    expect(headerValue({ authorization: 'a', 'X-API-KEY': 'k' }, 'Authorization')).toBe('a');
    expect(headerValue({ authorization: 'a', 'X-API-KEY': 'k' }, 'x-api-key')).toBe('k');
    expect(headerValue({ other: 1 }, 'Authorization')).toBeUndefined();
    expect(headerValue('Authorization: x', 'Authorization')).toBeUndefined();
    expect(headerValue(null, 'Authorization')).toBeUndefined();
  });
  it('bearerToken: the token of a real Bearer, whatever the case and spacing; null for placeholders', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('  bearer   abc  ')).toBe('abc');
    expect(bearerToken('Bearer\tabc\n')).toBe('abc');
    for (const v of ['Bearer ${env:X}', 'Bearer AGENTSTACK_ACCESS_TOKEN', 'Bearer <token>', 'Bearer ', 'Basic abc', 'Bearer a b', 42, undefined]) {
      expect(bearerToken(v)).toBeNull();
    }
  });
  it('isRealApiKey: a key, not empty, not ${...}', () => {
    expect(isRealApiKey('k-123')).toBe(true);
    for (const v of ['', '  ', '${env:KEY}', 7, null]) expect(isRealApiKey(v)).toBe(false);
  });
  it('agentstackEntry and bearerOf read only the agentstack entry', () => {
    expect(agentstackEntry({ mcpServers: { agentstack: 'x' } })).toBeUndefined();
    expect(bearerOf(config({ authorization: 'bearer tok-1' }))).toBe('tok-1');
    expect(bearerOf({ mcpServers: { other: { headers: { Authorization: 'Bearer tok-1' } } } })).toBeNull();
  });
  it('the refresh window is 120 s; a fingerprint is one-way and stable', () => {
    expect(REFRESH_WINDOW_MS).toBe(120_000);
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW + REFRESH_WINDOW_MS }, NOW)).toBe(true);
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW + REFRESH_WINDOW_MS + 1 }, NOW)).toBe(false);
    expect(tokenFingerprint('tok')).toBe(tokenFingerprint('tok'));
    expect(tokenFingerprint('tok')).not.toContain('tok');
    expect(tokenFingerprint('tok')).not.toBe(tokenFingerprint('tok2'));
  });
});

describe('a Bearer the server refused', () => {
  it('counts as expired and due for renewal, whether its expiry was unknown or still ahead; an API key or no token is untouched', () => {
    const unknown = gate(config({ Authorization: 'Bearer opaque-token-0123456789' }));
    expect(unknown).toMatchObject({ state: 'ok', expiresAtMs: null });
    expect(needsRefresh(unknown, NOW)).toBe(false);
    const marked = refusedView(unknown, true, NOW);
    expect(marked).toMatchObject({ state: 'expired', expiresAtMs: NOW });
    expect(needsRefresh(marked, NOW)).toBe(true);
    expect(needsSignIn(marked.state)).toBe(true);
    const later = gate(config({ Authorization: `Bearer ${jwt({ exp: NOW / 1000 + 3600 })}` }));
    expect(refusedView(later, true, NOW)).toMatchObject({ state: 'expired', expiresAtMs: NOW });
    expect(refusedView(later, false, NOW)).toBe(later);
    const key = gate(config({ 'X-API-Key': 'k' }));
    expect(refusedView(key, true, NOW)).toBe(key);
  });
});
