import { describe, expect, it } from 'vitest';
import { displayName } from '../../lib/agentstack/auth/identity.js';
import { identityFor } from '../../lib/agentstack/auth/identityCache.js';

describe('who is signed in', () => {
  it('one display-name rule: email, else display name, else the user id', () => {
    expect(displayName({ email: 'dev@agentstack.test', display_name: 'Dev', user_id: 7 })).toBe('dev@agentstack.test');
    expect(displayName({ email: null, display_name: 'Dev', user_id: 7 })).toBe('Dev');
    expect(displayName({ email: '', display_name: '', user_id: 7 })).toBe('user 7');
    expect(displayName({ user_id: 'u-1' })).toBe('user u-1');
    expect(displayName({ email: `${'a'.repeat(300)}@x`, user_id: 1 }).length).toBeLessThanOrEqual(121);
  });
  it('the cache answers only for the same server and subject', () => {
    const cached = { who: 'dev', sub: 's1', server_url: 'https://a/mcp', fetched_at: '2026-12-01T00:00:00Z' };
    expect(identityFor(cached, 's1', 'https://a/mcp')).toBe(cached);
    expect(identityFor(cached, undefined, 'https://a/mcp')).toBe(cached);
    expect(identityFor(cached, 's2', 'https://a/mcp')).toBeNull();
    expect(identityFor(cached, 's1', 'https://b/mcp')).toBeNull();
    expect(identityFor(null, 's1', 'https://a/mcp')).toBeNull();
  });
});
