/**
 * Exact values of two small rule sets: the device-poll interval arithmetic (RFC 8628: the server's interval,
 * default 5 s; slow_down adds 5 s for good; transient failures back off by doubling, capped) and the base URL rules
 * (https, or http to loopback only; no credentials, query or fragment; `<base>/mcp`).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLL_TIMING, initialPollState, nextPoll } from '../../lib/agentstack/signIn/poll.js';
import { baseUrlFromMcpUrl, DEFAULT_BASE_URL, isLoopbackHost, isSafeWebUrl, MCP_PATH, mcpUrlFor, parseBaseUrl, resolveBaseUrl } from '../../lib/agentstack/server/baseUrl.js';

describe('poll interval arithmetic', () => {
  it('starts at the server interval in seconds, or 5 s for a missing, zero, negative or non-finite one', () => {
    expect(DEFAULT_POLL_TIMING).toEqual({ secondMs: 1000, slowDownIncrementMs: 5000, maxBackoffMs: 60_000 });
    expect(initialPollState(3)).toEqual({ intervalMs: 3000, backoffMs: 0 });
    expect(initialPollState(0.5)).toEqual({ intervalMs: 500, backoffMs: 0 });
    for (const bad of [undefined, 0, -2, Number.NaN, Number.POSITIVE_INFINITY]) expect(initialPollState(bad).intervalMs, String(bad)).toBe(5000);
    expect(initialPollState(2, { secondMs: 10, slowDownIncrementMs: 50, maxBackoffMs: 600 })).toEqual({ intervalMs: 20, backoffMs: 0 });
  });

  it('pending waits one interval and clears a back-off', () => {
    expect(nextPoll({ intervalMs: 4000, backoffMs: 16_000 }, 'pending')).toEqual({ state: { intervalMs: 4000, backoffMs: 0 }, delayMs: 4000 });
  });

  it('slow_down adds the increment to the interval for good and clears a back-off', () => {
    expect(nextPoll({ intervalMs: 4000, backoffMs: 8000 }, 'slow_down')).toEqual({ state: { intervalMs: 9000, backoffMs: 0 }, delayMs: 9000 });
    const timing = { secondMs: 1000, slowDownIncrementMs: 7000, maxBackoffMs: 60_000 };
    expect(nextPoll({ intervalMs: 1000, backoffMs: 0 }, 'slow_down', timing).delayMs).toBe(8000);
  });

  it('transient failures back off: twice the interval first, then doubling, capped at the maximum', () => {
    let state = { intervalMs: 5000, backoffMs: 0 };
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const step = nextPoll(state, 'transient');
      delays.push(step.delayMs);
      expect(step.state).toEqual({ intervalMs: 5000, backoffMs: step.delayMs });
      state = step.state;
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 60_000, 60_000]);
  });

  it('the cap never forces polling faster than the interval itself', () => {
    const timing = { secondMs: 1000, slowDownIncrementMs: 5000, maxBackoffMs: 3000 };
    expect(nextPoll({ intervalMs: 5000, backoffMs: 0 }, 'transient', timing).delayMs).toBe(5000);
    expect(nextPoll({ intervalMs: 1000, backoffMs: 0 }, 'transient', timing).delayMs).toBe(2000);
    expect(nextPoll({ intervalMs: 1000, backoffMs: 2000 }, 'transient', timing).delayMs).toBe(3000);
  });
});

describe('base URL rules', () => {
  it('loopback hosts, whatever their case; nothing else', () => {
    for (const host of ['127.0.0.1', '[::1]', '::1', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['127.0.0.2', 'localhost.example', '0.0.0.0', '', 'agentstack.tech']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('safe web URLs: https anywhere, http to loopback only, never with credentials', () => {
    for (const url of ['https://agentstack.tech', 'http://127.0.0.1:8080/x', 'http://[::1]:9/', 'http://localhost']) expect(isSafeWebUrl(url), url).toBe(true);
    for (const url of ['http://agentstack.tech', 'ftp://127.0.0.1', 'https://u@agentstack.tech', 'https://:p@agentstack.tech', 'not a url', '', 'javascript:alert(1)']) {
      expect(isSafeWebUrl(url), url).toBe(false);
    }
  });

  it('parses a base URL to origin plus path without trailing slashes', () => {
    expect(parseBaseUrl(' https://agentstack.tech/ ')).toBe('https://agentstack.tech');
    expect(parseBaseUrl('https://AgentStack.tech/api//')).toBe('https://agentstack.tech/api');
    expect(parseBaseUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000');
  });

  it('refuses what is not a URL, not safe, or carries a query or fragment, naming the source', () => {
    expect(() => parseBaseUrl('nope', 'the --base-url flag')).toThrow(expect.objectContaining({ code: 'invalid_config', message: 'the --base-url flag is not a URL: "nope"' }));
    expect(() => parseBaseUrl('http://agentstack.tech')).toThrow(expect.objectContaining({ code: 'invalid_config', message: 'AGENTSTACK_BASE_URL must be https://, or http:// to 127.0.0.1, ::1 or localhost (got http://agentstack.tech)' }));
    expect(() => parseBaseUrl('https://agentstack.tech/?a=1')).toThrow(expect.objectContaining({ code: 'invalid_config', message: 'AGENTSTACK_BASE_URL must not carry a query or fragment' }));
    expect(() => parseBaseUrl('https://agentstack.tech/#x')).toThrow(/must not carry a query or fragment/);
    expect(() => parseBaseUrl(`${'x'.repeat(300)}`)).toThrow(expect.objectContaining({ message: `AGENTSTACK_BASE_URL is not a URL: "${'x'.repeat(200)}"` }));
  });

  it('resolves the base URL from the environment, or the default when unset or blank', () => {
    expect(DEFAULT_BASE_URL).toBe('https://agentstack.tech');
    expect(resolveBaseUrl({})).toBe(DEFAULT_BASE_URL);
    expect(resolveBaseUrl({ AGENTSTACK_BASE_URL: '   ' })).toBe(DEFAULT_BASE_URL);
    expect(resolveBaseUrl({ AGENTSTACK_BASE_URL: 'https://staging.agentstack.tech/' })).toBe('https://staging.agentstack.tech');
    expect(() => resolveBaseUrl({ AGENTSTACK_BASE_URL: 'http://evil.example' })).toThrow(/AGENTSTACK_BASE_URL must be https/);
  });

  it('maps a base URL to its MCP URL and back', () => {
    expect(MCP_PATH).toBe('/mcp');
    expect(mcpUrlFor('https://agentstack.tech/api')).toBe('https://agentstack.tech/api/mcp');
    expect(baseUrlFromMcpUrl('https://agentstack.tech/mcp')).toBe('https://agentstack.tech');
    expect(baseUrlFromMcpUrl('https://agentstack.tech/api/mcp/')).toBe('https://agentstack.tech/api');
    expect(baseUrlFromMcpUrl('http://127.0.0.1:9/mcp')).toBe('http://127.0.0.1:9');
    expect(baseUrlFromMcpUrl('https://agentstack.tech/api/mcp///')).toBe('https://agentstack.tech/api');
  });

  it('an MCP URL that is not a string, not a URL, not safe, has a query or fragment, or does not end in /mcp: null', () => {
    const urlLike = { toString: () => 'https://agentstack.tech/mcp' };
    for (const value of [urlLike, 5, null, undefined, 'not a url', 'http://agentstack.tech/mcp', 'https://agentstack.tech/mcp?x=1', 'https://agentstack.tech/mcp#f', 'https://agentstack.tech/api', 'https://agentstack.tech/mcpx']) {
      expect(baseUrlFromMcpUrl(value), String(value)).toBeNull();
    }
  });
});
