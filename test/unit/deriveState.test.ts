/**
 * lib/agentstack/state/derive.ts, the facts every view renders: the expiry of an opaque token (no `exp` to read)
 * comes from what the sign-in recorded when no refresh record is stored or the stored one is this server's, never
 * from another server's; and the refusal on record counts only for this server's very token.
 */
import { describe, expect, it } from 'vitest';
import { tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { deriveState, refusedSince, type DeriveInput } from '../../lib/agentstack/state/derive.js';
import { SIGN_IN_COMMAND } from '../../lib/agentstack/state/story.js';

const BASE = 'https://agentstack.example';
const MCP = `${BASE}/mcp`;
const OPAQUE = 'opaque-access-token-0123456789';
const NOW = Date.parse('2030-01-02T03:04:05Z');
const iso = (ms: number) => new Date(ms).toISOString();

function input(over: { expiresAt?: string | null; record?: DeriveInput['refresh']['record']; failure?: DeriveInput['snapshot']['failure'] } = {}): DeriveInput {
  const entry = { url: MCP, headers: { Authorization: `Bearer ${OPAQUE}` } };
  return {
    now: NOW,
    mcp: { config: { mcpServers: { agentstack: entry } }, entry, error: null },
    refresh: { expiresAt: over.expiresAt ?? null, record: over.record ?? null },
    pin: { text: null, env: null },
    snapshot: { failure: over.failure ?? null },
    identity: null,
    signedOut: false,
  };
}

describe('an opaque token\'s recorded expiry', () => {
  it('no refresh record, expiring within the refresh window: expiring, and the next step is to sign in again before it expires', () => {
    const state = deriveState(input({ expiresAt: iso(NOW + 60_000) }), null);
    expect(state.account).toMatchObject({ state: 'expiring', expiresAt: '2030-01-02T03:05:05Z' });
    expect(state.story).toMatchObject({ next: `Sign in again with ${SIGN_IN_COMMAND} before it expires.`, underway: false });
  });

  it('no refresh record, past its end: expired, sign in again', () => {
    expect(deriveState(input({ expiresAt: iso(NOW - 1_000) }), null).account.state).toBe('expired');
  });

  it('this server\'s refresh record: its expiry counts, and the refresh token renews it', () => {
    const state = deriveState(input({ expiresAt: iso(NOW + 60_000), record: { resource: MCP, token_endpoint: null, access_token_sha256: null } }), null);
    expect(state.account.state).toBe('expiring');
    expect(state.story.underway).toBe(true);
  });

  it('another server\'s refresh record: its expiry is not this token\'s (no expiry known, signed in)', () => {
    const state = deriveState(input({ expiresAt: iso(NOW - 1_000), record: { resource: null, token_endpoint: 'https://other.example/token', access_token_sha256: null } }), null);
    expect(state.account).toMatchObject({ state: 'signed_in', expiresAt: null });
  });
});

describe('refusedSince', () => {
  const refusal = { at: iso(NOW), server_url: MCP, message: 'HTTP 401', unauthorized: true };
  it('this server refused this very token (its fingerprint): refused; another token, another server, or no 401: not', () => {
    expect(refusedSince({ ...refusal, token_sha256: tokenFingerprint(OPAQUE) }, MCP, null, OPAQUE)).toBe(true);
    expect(refusedSince({ ...refusal, token_sha256: tokenFingerprint('another') }, MCP, null, OPAQUE)).toBe(false);
    expect(refusedSince({ ...refusal, token_sha256: tokenFingerprint(OPAQUE) }, 'https://other.example/mcp', null, OPAQUE)).toBe(false);
    expect(refusedSince({ ...refusal, unauthorized: false }, MCP, null, OPAQUE)).toBe(false);
    expect(refusedSince(null, MCP, null, OPAQUE)).toBe(false);
  });

  it('a record without a fingerprint: refused only when it is not older than the token', () => {
    const iat = Math.floor(NOW / 1000);
    expect(refusedSince(refusal, MCP, { iat })).toBe(true);
    expect(refusedSince({ ...refusal, at: iso(NOW - 1_000) }, MCP, { iat })).toBe(false);
    expect(refusedSince(refusal, MCP, null)).toBe(true);
  });

  it('in the derived state: a refused token with no refresh token is refused, whatever its own expiry says', () => {
    const state = deriveState(input({ expiresAt: iso(NOW + 3_600_000), failure: { ...refusal, token_sha256: tokenFingerprint(OPAQUE) } }), null);
    expect(state.account.state).toBe('refused');
  });
});
