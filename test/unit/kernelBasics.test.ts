import { describe, expect, it } from 'vitest';
import { PluginError, isPluginError, quoteShort } from '../../lib/platform/errors.js';
import { decodeJwtClaims, jwtExpiryMs } from '../../lib/agentstack/auth/jwt.js';
import { maskSecret } from '../../lib/platform/text/mask.js';
import { isScopePreset, scopeStringFor } from '../../lib/agentstack/auth/scopes.js';
import { isExecuteTool } from '../../lib/agentstack/server/toolNames.js';

const jwt = (claims: object) => `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

describe('kernel basics', () => {
  it('masks secrets gh-style, revealing at most 4 characters', () => {
    const token = 'eyJhbGciOiJFUzI1NiJ9.payload-payload-payload.signature';
    const masked = maskSecret(token);
    expect(masked.startsWith('eyJh')).toBe(true);
    expect(masked.slice(4)).toMatch(/^\*+$/);
    expect(maskSecret('short')).toBe('********');
    expect(maskSecret('')).toBe('(none)');
  });

  it('decodes JWT claims without trusting them, and tolerates garbage', () => {
    expect(decodeJwtClaims(jwt({ sub: 'u1', exp: 100 }))).toEqual({ sub: 'u1', exp: 100 });
    expect(jwtExpiryMs(jwt({ exp: 100 }))).toBe(100_000);
    expect(jwtExpiryMs(jwt({ exp: 'soon' }))).toBeNull();
    for (const bad of ['', 'a.b', 'a.!!!.c', `x.${Buffer.from('[1]').toString('base64url')}.y`]) expect(decodeJwtClaims(bad)).toBeNull();
  });

  it('shortens and cleans quoted server text', () => {
    expect(quoteShort('a\u0000\nb')).toBe('a b');
    expect(quoteShort('x'.repeat(500), 10)).toBe(`${'x'.repeat(10)}…`);
  });

  it('types errors by code', () => {
    const error = new PluginError('network', 'down');
    expect(isPluginError(error, 'network')).toBe(true);
    expect(isPluginError(error, 'server')).toBe(false);
    expect(isPluginError(new Error('x'))).toBe(false);
  });

  it('knows both execute tool names and the scope presets', () => {
    expect(isExecuteTool('agentstack.execute')).toBe(true);
    expect(isExecuteTool('agentstack_execute')).toBe(true);
    expect(isExecuteTool('other')).toBe(false);
    expect(isScopePreset('builder')).toBe(true);
    expect(isScopePreset('toString')).toBe(false);
    expect(scopeStringFor('readonly').split(' ').slice(0, 2)).toEqual(['openid', 'offline_access']);
  });
});
