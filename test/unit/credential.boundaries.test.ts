/**
 * The edges of the credential rules, exactly: a token is expired at its expiry instant (not a millisecond later),
 * and is refreshed when it expires within REFRESH_WINDOW_MS, the window's last millisecond included.
 */
import { describe, expect, it } from 'vitest';
import { classifyCredential, needsRefresh, needsSignIn, REFRESH_WINDOW_MS, type CredentialState } from '../../lib/agentstack/mcpJson/credential.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const entry = (headers: Record<string, unknown> | undefined) => ({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', ...(headers ? { headers } : {}) } } });
const bearer = (token: string) => entry({ Authorization: `Bearer ${token}` });
const view = (config: Record<string, unknown>, storedExpiresAt?: string | null, now = NOW) => classifyCredential({ config, storedExpiresAt, now });

describe('expiry boundary', () => {
  it('a JWT whose exp is now is expired; one second later it is not yet', () => {
    expect(view(bearer(jwt({ exp: NOW / 1000 })))).toMatchObject({ state: 'expired', expiresAtMs: NOW });
    expect(view(bearer(jwt({ exp: NOW / 1000 + 1 })))).toMatchObject({ state: 'ok', expiresAtMs: NOW + 1000 });
  });

  it('an opaque token uses the stored expires_at, with the same boundary', () => {
    const opaque = bearer('opaque-token-0123456789');
    expect(view(opaque, new Date(NOW).toISOString())).toMatchObject({ state: 'expired', expiresAtMs: NOW, token: 'opaque-token-0123456789', claims: null });
    expect(view(opaque, new Date(NOW + 1).toISOString())).toMatchObject({ state: 'ok', expiresAtMs: NOW + 1 });
    expect(view(opaque, 'not a date')).toMatchObject({ state: 'ok', expiresAtMs: null });
    expect(view(opaque, null)).toMatchObject({ state: 'ok', expiresAtMs: null });
    expect(view(opaque, '')).toMatchObject({ state: 'ok', expiresAtMs: null });
  });

  it('an expired user_api_key with null service_caps is expired first (refresh may help, a new sign-in is not forced)', () => {
    expect(view(bearer(jwt({ exp: NOW / 1000 - 5, token_type: 'user_api_key', service_caps: null }))).state).toBe('expired');
  });
});

describe('refresh window boundary', () => {
  it('refreshes at exactly REFRESH_WINDOW_MS before expiry, not a millisecond earlier', () => {
    expect(REFRESH_WINDOW_MS).toBe(120_000);
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW + REFRESH_WINDOW_MS }, NOW)).toBe(true);
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW + REFRESH_WINDOW_MS + 1 }, NOW)).toBe(false);
    expect(needsRefresh({ state: 'ok', expiresAtMs: NOW }, NOW)).toBe(true);
  });

  it('an expired token is refreshed, whatever its age; other states never are', () => {
    expect(needsRefresh({ state: 'expired', expiresAtMs: NOW - 86_400_000 }, NOW)).toBe(true);
    expect(needsRefresh({ state: 'expired', expiresAtMs: null }, NOW)).toBe(false);
    for (const state of ['unsigned', 'placeholder', 'null_caps'] as CredentialState[]) {
      expect(needsRefresh({ state, expiresAtMs: NOW - 1 }, NOW), state).toBe(false);
    }
  });

  it('from the view: a JWT expiring in 120 s is refreshed, one in 121 s is not, an expired one is', () => {
    const at = (seconds: number) => view(bearer(jwt({ exp: NOW / 1000 + seconds })));
    expect(needsRefresh(at(120), NOW)).toBe(true);
    expect(needsRefresh(at(121), NOW)).toBe(false);
    expect(needsRefresh(at(-3600), NOW)).toBe(true);
  });

  it('sign-in is needed for placeholder, expired and null_caps only', () => {
    const all: CredentialState[] = ['unsigned', 'placeholder', 'expired', 'null_caps', 'ok'];
    expect(all.filter(needsSignIn)).toEqual(['placeholder', 'expired', 'null_caps']);
  });
});

describe('reading the entry', () => {
  it('finds Authorization and X-API-Key whatever their case', () => {
    const token = jwt({ exp: NOW / 1000 + 3600 });
    expect(view(entry({ authorization: `Bearer ${token}` }))).toMatchObject({ state: 'ok', token });
    expect(view(entry({ AUTHORIZATION: `bearer   ${token}  ` }))).toMatchObject({ state: 'ok', token });
    expect(view(entry({ 'x-api-key': 'ak_live_0123456789' }))).toMatchObject({ state: 'ok', apiKey: true, token: null, expiresAtMs: null });
  });

  it('an X-API-Key that is empty, blank, a ${...} reference or not a string is no credential', () => {
    for (const key of ['', '   ', '${env:AGENTSTACK_API_KEY}', 'prefix-${env:K}', 42, null]) {
      expect(view(entry({ 'X-API-Key': key })), String(key)).toEqual({ state: 'unsigned', token: null, claims: null, expiresAtMs: null, apiKey: false });
    }
  });

  it('a header literally named "undefined" is not read as Authorization or X-API-Key', () => {
    expect(view(entry({ undefined: `Bearer ${jwt({ exp: NOW / 1000 + 3600 })}` })).state).toBe('unsigned');
  });

  it('a Bearer wins over an X-API-Key in the same entry', () => {
    expect(view(entry({ 'X-API-Key': 'ak_live_0123456789', Authorization: 'Bearer ${env:T}' }))).toMatchObject({ state: 'placeholder', apiKey: false });
  });

  it('headers that are not an object, an entry that is not an object, servers that are not an object: unsigned', () => {
    expect(view(entry(undefined)).state).toBe('unsigned');
    expect(view({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', headers: ['Authorization'] } } }).state).toBe('unsigned');
    expect(view({ mcpServers: { agentstack: 'https://agentstack.tech/mcp' } }).state).toBe('unsigned');
    expect(view({ mcpServers: [] }).state).toBe('unsigned');
    expect(view({}).state).toBe('unsigned');
  });

  it('a placeholder exposes nothing', () => {
    expect(view(entry({ Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' }))).toEqual({ state: 'placeholder', token: null, claims: null, expiresAtMs: null, apiKey: false });
  });

  it('null_caps needs all three: user_api_key, the service_caps key present, and null', () => {
    const at = (claims: object) => view(bearer(jwt({ exp: NOW / 1000 + 3600, ...claims }))).state;
    expect(at({ token_type: 'user_api_key', service_caps: null })).toBe('null_caps');
    expect(at({ token_type: 'access_token', service_caps: null })).toBe('ok');
    expect(at({ token_type: 'user_api_key' })).toBe('ok');
    expect(at({ token_type: 'user_api_key', service_caps: [] })).toBe('ok');
    expect(at({ token_type: 'user_api_key', service_caps: 0 })).toBe('ok');
  });

  it('exposes the decoded claims of a JWT', () => {
    const claims = { sub: 'u-1', exp: NOW / 1000 + 60, caps: ['a'] };
    expect(view(bearer(jwt(claims))).claims).toMatchObject(claims);
  });
});
