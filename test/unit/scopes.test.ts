import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SCOPE_PRESETS, resolveScopes, scopeStringFor, type ScopeRequest } from '../../lib/agentstack/auth/scopes.js';
import { grantedScopes, uncoveredActions } from '../../lib/agentstack/auth/scopes.js';

const OURS = ['openid', 'offline_access', 'profile:read', 'projects:read', 'projects:write', 'actions:read', 'actions:execute', 'data:read', 'data:write'];
const OTHER = ['openid', 'offline_access', 'read:profile', 'read:projects', 'write:projects', 'read:actions', 'execute:actions', 'read:data', 'write:data'];
const split = (s: string) => s.split(' ');

describe('scope presets follow the server', () => {
  it('with nothing advertised: today\'s lists, base scopes first; --scopes gets the base scopes added', () => {
    for (const preset of ['full', 'readonly', 'builder'] as const) {
      expect(resolveScopes({ preset }, null)).toBe(scopeStringFor(preset));
      expect(resolveScopes({ preset }, [])).toBe(scopeStringFor(preset));
    }
    expect(resolveScopes({ scopes: ['x:y', 'openid'] }, null)).toBe('openid offline_access x:y');
  });

  it('with our own vocabulary advertised: the presets are today\'s lists', () => {
    for (const preset of ['full', 'readonly', 'builder'] as const) {
      expect(split(resolveScopes({ preset }, OURS))).toEqual(['openid', 'offline_access', ...SCOPE_PRESETS[preset]]);
    }
  });

  it('with another vocabulary: full = every advertised scope, readonly = the read ones, builder = read + execute/write', () => {
    expect(split(resolveScopes({ preset: 'full' }, OTHER))).toEqual(OTHER);
    expect(split(resolveScopes({ preset: 'readonly' }, OTHER))).toEqual(['openid', 'offline_access', 'read:profile', 'read:projects', 'read:actions', 'read:data']);
    expect(split(resolveScopes({ preset: 'builder' }, OTHER))).toEqual(OTHER);
    expect(split(resolveScopes({ preset: 'readonly' }, ['https://api.example.com/files.readonly', 'https://api.example.com/files']))).toEqual(['https://api.example.com/files.readonly']);
  });

  it('base scopes are asked for only when advertised', () => {
    expect(resolveScopes({ preset: 'full' }, ['read:data'])).toBe('read:data');
    expect(resolveScopes({ scopes: ['read:data'] }, ['openid', 'read:data'])).toBe('openid read:data');
  });

  it('--scopes naming a scope the server does not advertise is refused with the list it offers', () => {
    expect(() => resolveScopes({ scopes: ['data:write'] }, OTHER)).toThrow(/does not offer the scope "data:write"; it offers: openid offline_access read:profile/);
  });

  it('a preset with no matching advertised scope is a clear error, not an empty request', () => {
    expect(() => resolveScopes({ preset: 'readonly' }, ['openid', 'admin'])).toThrow(/no scope for the readonly preset/);
  });

  it('property: with an advertised list, nothing outside it is ever asked for', () => {
    const scope = fc.stringMatching(/^[a-z][a-z:._/-]{0,20}$/);
    const request: fc.Arbitrary<ScopeRequest> = fc.oneof(
      fc.constantFrom<ScopeRequest>({ preset: 'full' }, { preset: 'readonly' }, { preset: 'builder' }),
      fc.array(scope, { minLength: 1, maxLength: 5 }).map((scopes) => ({ scopes })),
    );
    fc.assert(fc.property(fc.array(fc.oneof(scope, fc.constantFrom(...OURS, ...OTHER)), { minLength: 1, maxLength: 12 }), request, (advertised, req) => {
      let asked: string;
      try {
        asked = resolveScopes(req, advertised);
      } catch (error) {
        expect((error as { code?: string }).code).toBe('invalid_config');
        return;
      }
      for (const s of split(asked).filter(Boolean)) expect(advertised).toContain(s);
    }), { numRuns: 500 });
  });

  it('scopes of another vocabulary are judged by their words: read ones for readonly, read and change ones for builder, all for full', () => {
    const reads = ['files.view', 'files-list', 'files:get', 'all.readonly'];
    const changes = ['jobs.exec', 'jobs.run', 'items.create', 'items.update', 'org.manage'];
    const advertised = [...reads, ...changes, 'misc', 'readme'];
    expect(split(resolveScopes({ preset: 'readonly' }, advertised))).toEqual(reads);
    expect(split(resolveScopes({ preset: 'builder' }, advertised))).toEqual([...reads, ...changes]);
    expect(split(resolveScopes({ preset: 'full' }, advertised))).toEqual(advertised);
  });

  it('full asks for what is offered even when that is only base scopes; the errors list every scope', () => {
    expect(resolveScopes({ preset: 'full' }, ['openid'])).toBe('openid');
    expect(() => resolveScopes({ scopes: ['a:b', 'c:d'] }, ['openid', 'x'])).toThrow('The server does not offer the scope "a:b", "c:d"; it offers: openid x');
    expect(() => resolveScopes({ preset: 'builder' }, ['openid', 'admin'])).toThrow('(it offers: openid admin)');
  });
});

describe('what a grant covers', () => {
  it('reads the token\'s own list first, else the token response\'s scope, else unknown', () => {
    expect(grantedScopes({ scp: ['data:read'] }, 'openid data:write')).toEqual(['data:read']);
    expect(grantedScopes({ sub: 'x' }, 'openid  data:write ')).toEqual(['openid', 'data:write']);
    expect(grantedScopes(null, '')).toBeNull();
    expect(grantedScopes(null, undefined)).toBeNull();
  });

  it('counts the actions whose required capability is not granted; none when the grant is unknown', () => {
    const actions = [{ required_cap: 'data:read' }, { required_cap: 'data:write' }, { required_cap: null }, {}, { required_cap: 'projects:write' }];
    expect(uncoveredActions(actions, ['data:read'])).toBe(2);
    expect(uncoveredActions(actions, ['data:read', 'data:write', 'projects:write'])).toBe(0);
    expect(uncoveredActions(actions, null)).toBe(0);
  });
});
