/**
 * Masking (what a person sees of a secret) and scrubbing (the last guard on text that may carry one), exactly:
 * a mask shows at most 4 characters and never a short secret; scrubbing leaves no run of 12 characters of a secret.
 */
import { describe, expect, it } from 'vitest';
import { maskSecret } from '../../lib/platform/text/mask.js';
import { scrubSecrets } from '../../lib/platform/text/scrub.js';
import { scopeStringFor, isScopePreset, SCOPE_PRESETS, BASE_SCOPES, CAPABILITY_SCOPES, DEFAULT_SCOPE_PRESET } from '../../lib/agentstack/auth/scopes.js';

describe('maskSecret', () => {
  it('shows the first 4 characters and stars for the rest, up to 36 stars', () => {
    expect(maskSecret('abcdefghijkl')).toBe(`abcd${'*'.repeat(8)}`);
    expect(maskSecret('a'.repeat(40))).toBe(`aaaa${'*'.repeat(36)}`);
    expect(maskSecret(`eyJh${'x'.repeat(500)}`)).toBe(`eyJh${'*'.repeat(36)}`);
  });

  it('a secret under 12 characters shows nothing of itself, always 8 stars', () => {
    expect(maskSecret('abcdefghijk')).toBe('********');
    expect(maskSecret('a')).toBe('********');
  });

  it('no secret: (none)', () => {
    expect(maskSecret('')).toBe('(none)');
    expect(maskSecret(null)).toBe('(none)');
    expect(maskSecret(undefined)).toBe('(none)');
  });

  it('never more than 4 characters of the secret, at any length', () => {
    for (let length = 1; length <= 80; length++) {
      const secret = Array.from({ length }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
      const shown = maskSecret(secret).replace(/\*+$/, '');
      expect(shown.length, `length ${length}`).toBeLessThanOrEqual(4);
      expect(secret.startsWith(shown)).toBe(true);
    }
  });
});

describe('scrubSecrets', () => {
  const token = `eyJ${'k7Qm2xWp9Z'.repeat(6)}-tail`;

  it('masks a run of exactly 12 characters of a secret, and leaves 11 alone', () => {
    expect(scrubSecrets(`a ${token.slice(10, 22)} b`, [token])).toBe('a **** b');
    expect(scrubSecrets(`a ${token.slice(10, 21)} b`, [token])).toBe(`a ${token.slice(10, 21)} b`);
  });

  it('masks the whole secret as one run, and its end', () => {
    expect(scrubSecrets(`[${token}]`, [token])).toBe('[****]');
    expect(scrubSecrets(`[${token.slice(-12)}]`, [token])).toBe('[****]');
  });

  it('masks a run longer than 12 characters as one piece, leaving none of its characters', () => {
    const secret = 'rt_Q8vN2kLp0ZxW7mTa4YbC9dEf1GhJ6sUi3oRe5';
    expect(scrubSecrets(`[${secret.slice(0, 20)}]`, [secret])).toBe('[****]');
    expect(scrubSecrets(`[${secret.slice(7, 33)}]`, [secret])).toBe('[****]');
  });

  it('masks every occurrence, of every secret given', () => {
    const other = 'another-secret-0123456789';
    expect(scrubSecrets(`${token} x ${token} y ${other}`, [token, other])).toBe('**** x **** y ****');
  });

  it('a secret of 8 to 11 characters is masked where whole; one under 8 is ignored', () => {
    expect(scrubSecrets('k=12345678 and 1234567', ['12345678'])).toBe('k=**** and 1234567');
    expect(scrubSecrets('k=1234567', ['1234567'])).toBe('k=1234567');
    expect(scrubSecrets('x', [''])).toBe('x');
  });
});

describe('scope presets', () => {
  it('every preset starts with openid and offline_access and grants only known capability scopes', () => {
    expect(BASE_SCOPES).toEqual(['openid', 'offline_access']);
    for (const preset of Object.keys(SCOPE_PRESETS) as Array<keyof typeof SCOPE_PRESETS>) {
      const scopes = scopeStringFor(preset).split(' ');
      expect(scopes.slice(0, 2), preset).toEqual(['openid', 'offline_access']);
      for (const scope of scopes.slice(2)) expect(CAPABILITY_SCOPES as readonly string[]).toContain(scope);
      expect(new Set(scopes).size).toBe(scopes.length);
    }
    expect(DEFAULT_SCOPE_PRESET).toBe('full');
    expect(scopeStringFor('full').split(' ').slice(2).sort()).toEqual([...CAPABILITY_SCOPES].sort());
  });

  it('grants exactly the scopes each preset names', () => {
    expect(scopeStringFor('readonly')).toBe('openid offline_access profile:read projects:read actions:read data:read');
    expect(scopeStringFor('builder')).toBe('openid offline_access profile:read projects:read projects:write actions:read actions:execute data:read');
    expect(scopeStringFor('full')).toBe('openid offline_access profile:read projects:read projects:write actions:read actions:execute data:read data:write');
  });

  it('knows its presets and nothing else', () => {
    for (const preset of Object.keys(SCOPE_PRESETS)) expect(isScopePreset(preset)).toBe(true);
    for (const other of ['', 'admin', 'FULL', 'toString', '__proto__', 'constructor']) expect(isScopePreset(other), other).toBe(false);
  });
});
