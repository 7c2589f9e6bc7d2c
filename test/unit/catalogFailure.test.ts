import { describe, expect, it } from 'vitest';
import { catalogFailure } from '../../lib/agentstack/snapshot/fetch.js';
import { bearerRefused } from '../../lib/agentstack/probe/probe.js';
import type { Exchange } from '../../lib/agentstack/probe/types.js';

const URL = 'https://as.example/mcp/actions';

describe('catalogFailure: what a non-200 answer to GET /mcp/actions means for the token', () => {
  it('401 invalid_token, or 401 without an error code: refused (invalid_grant)', () => {
    const refused = catalogFailure(URL, 401, 'Bearer error="invalid_token", resource_metadata="https://as.example/x"');
    expect(refused.code).toBe('invalid_grant');
    expect(refused.message).toBe(`Fetching the action catalog from ${URL} failed (HTTP 401 invalid_token)`);
    expect(catalogFailure(URL, 401, null).code).toBe('invalid_grant');
    expect(catalogFailure(URL, 401, 'Bearer realm="x"').message).toContain('(HTTP 401)');
  });

  it('403 insufficient_scope: not refused, names the scope (or says none was named)', () => {
    const scope = catalogFailure(URL, 403, 'Bearer error="insufficient_scope", scope="actions:read"');
    expect(scope.code).toBe('server');
    expect(scope.message).toContain('HTTP 403 insufficient_scope): the token lacks the scope actions:read');
    expect(scope.details).toMatchObject({ status: 403, insufficient_scope: true, scope: 'actions:read' });
    expect(catalogFailure(URL, 403, 'Bearer error="insufficient_scope"').message).toContain('a scope the server did not name');
  });

  it('a 403 that is not about scope still refuses; a 401 invalid_request and a 5xx do not', () => {
    expect(catalogFailure(URL, 403, null).code).toBe('invalid_grant');
    expect(catalogFailure(URL, 401, 'Bearer error="invalid_request"').code).toBe('server');
    expect(catalogFailure(URL, 503, null).code).toBe('server');
  });

  it('a long scope is quoted short', () => {
    const message = catalogFailure(URL, 403, `Bearer error="insufficient_scope", scope="${'a'.repeat(500)}"`).message;
    expect(message.length).toBeLessThan(400);
  });
});

describe('bearerRefused: the probe saw its Bearer refused', () => {
  const ex = (over: Partial<Exchange>): Exchange => ({ seq: 1, httpMethod: 'POST', url: 'https://as.example/mcp', sent: { authorization: true }, atMs: 0, durationMs: 1, ...over });
  it('only a 401 invalid_token to a request that carried the Bearer', () => {
    expect(bearerRefused({ exchanges: [ex({ status: 401, bearerError: 'invalid_token' })] })).toBe(true);
    expect(bearerRefused({ exchanges: [ex({ status: 401, bearerError: 'invalid_token', sent: { authorization: false } })] })).toBe(false);
    expect(bearerRefused({ exchanges: [ex({ status: 403, bearerError: 'insufficient_scope' })] })).toBe(false);
    expect(bearerRefused({ exchanges: [ex({ status: 401 })] })).toBe(false);
    expect(bearerRefused({ exchanges: [] })).toBe(false);
  });
});
