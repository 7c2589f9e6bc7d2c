import { describe, expect, it } from 'vitest';
import { bearerVerdict, parseBearerChallenge } from '../../lib/platform/net/bearerChallenge.js';

describe('parseBearerChallenge', () => {
  it('reads quoted and bare params, names lower-cased, escapes undone', () => {
    expect(parseBearerChallenge('Bearer realm="api", error="invalid_token", error_description="the token \\"x\\" expired"')?.params)
      .toEqual({ realm: 'api', error: 'invalid_token', error_description: 'the token "x" expired' });
    expect(parseBearerChallenge('bearer ERROR=insufficient_scope, Scope="a b"')?.params).toEqual({ error: 'insufficient_scope', scope: 'a b' });
  });

  it('finds the Bearer challenge among others, and stops at the next scheme', () => {
    expect(parseBearerChallenge('DPoP algs="ES256", error="use_dpop_nonce", Bearer error="invalid_token", resource_metadata="https://x/.well-known/oauth-protected-resource", Basic realm="r"')?.params)
      .toEqual({ error: 'invalid_token', resource_metadata: 'https://x/.well-known/oauth-protected-resource' });
    expect(parseBearerChallenge('Basic realm="r", Bearer')?.params).toEqual({});
  });

  it('a header with no Bearer challenge, none at all, or garbage is null or keeps what it spelled out', () => {
    expect(parseBearerChallenge(null)).toBeNull();
    expect(parseBearerChallenge('')).toBeNull();
    expect(parseBearerChallenge('Basic realm="r"')).toBeNull();
    expect(parseBearerChallenge('error="invalid_token"')).toBeNull();
    expect(parseBearerChallenge('Bearer error="invalid_token", ="x", scope="never read"')?.params).toEqual({ error: 'invalid_token' });
    expect(parseBearerChallenge('Bearer error="unterminated')?.params.error).toBe('"unterminated');
  });

  it('the first value of a repeated param wins; no prototype keys', () => {
    const params = parseBearerChallenge('Bearer error="invalid_token", error="insufficient_scope", __proto__="x"')!.params;
    expect(params.error).toBe('invalid_token');
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('bearerVerdict', () => {
  it('401 with invalid_token, or with no error code, refuses the token', () => {
    expect(bearerVerdict(401, 'Bearer error="invalid_token"')).toEqual({ kind: 'refused', error: 'invalid_token' });
    expect(bearerVerdict(401, 'Bearer resource_metadata="https://x"')).toEqual({ kind: 'refused', error: null });
    expect(bearerVerdict(401, null)).toEqual({ kind: 'refused', error: null });
  });

  it('403 insufficient_scope keeps the token and names the scope; other answers say nothing', () => {
    expect(bearerVerdict(403, 'Bearer error="insufficient_scope", scope="actions:read"')).toEqual({ kind: 'insufficient_scope', scope: 'actions:read' });
    expect(bearerVerdict(403, 'Bearer error="insufficient_scope"')).toEqual({ kind: 'insufficient_scope', scope: null });
    expect(bearerVerdict(403, null)).toBeNull();
    expect(bearerVerdict(401, 'Bearer error="invalid_request"')).toBeNull();
    expect(bearerVerdict(200, 'Bearer error="invalid_token"')).toBeNull();
    expect(bearerVerdict(500, null)).toBeNull();
  });
});
