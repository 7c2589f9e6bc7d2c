import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrlFromMcpUrl, DEFAULT_BASE_URL, isSafeWebUrl, mcpUrlFor, parseBaseUrl, resolveBaseUrl } from '../../lib/agentstack/server/baseUrl.js';
import { cursorDir, cursorPaths } from '../../lib/agentstack/server/paths.js';
import { lockPathFor } from '../../lib/platform/fs/lockPath.js';

describe('base URL', () => {
  it('defaults to https://agentstack.tech', () => {
    expect(resolveBaseUrl({})).toBe(DEFAULT_BASE_URL);
    expect(resolveBaseUrl({ AGENTSTACK_BASE_URL: '  ' })).toBe(DEFAULT_BASE_URL);
  });

  it.each([
    ['https://staging.agentstack.tech/', 'https://staging.agentstack.tech'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://localhost:3000/prefix/', 'http://localhost:3000/prefix'],
    ['http://[::1]:9000', 'http://[::1]:9000'],
  ])('accepts %s', (input, expected) => {
    expect(parseBaseUrl(input)).toBe(expected);
  });

  it.each(['http://agentstack.tech', 'http://192.168.1.10', 'ftp://x', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'https://u:p@agentstack.tech', 'https://a.tech/?x=1'])(
    'refuses %s with invalid_config before any request',
    (input) => {
      expect(() => parseBaseUrl(input)).toThrowError(expect.objectContaining({ code: 'invalid_config' }));
    },
  );

  it('reads the MCP URL (what the server prints, what mcp.json holds) as its base, never as <base>/mcp/mcp', () => {
    expect(parseBaseUrl('https://a.tech/mcp')).toBe('https://a.tech');
    expect(parseBaseUrl('http://127.0.0.1:5/mcp/')).toBe('http://127.0.0.1:5');
    expect(parseBaseUrl('https://a.tech/tenant/mcp')).toBe('https://a.tech/tenant');
    expect(parseBaseUrl('https://a.tech/mcpx')).toBe('https://a.tech/mcpx');
    expect(mcpUrlFor(parseBaseUrl('https://a.tech/mcp'))).toBe('https://a.tech/mcp');
  });

  it('maps MCP URLs back to base URLs only for valid AgentStack-style URLs', () => {
    expect(mcpUrlFor('https://a.tech')).toBe('https://a.tech/mcp');
    expect(baseUrlFromMcpUrl('https://staging.a.tech/mcp')).toBe('https://staging.a.tech');
    expect(baseUrlFromMcpUrl('http://127.0.0.1:5/mcp/')).toBe('http://127.0.0.1:5');
    expect(baseUrlFromMcpUrl('http://evil.example/mcp')).toBeNull();
    expect(baseUrlFromMcpUrl('https://a.tech/api')).toBeNull();
    expect(baseUrlFromMcpUrl(42)).toBeNull();
  });

  it('treats only https and loopback http as safe to open', () => {
    expect(isSafeWebUrl('https://agentstack.tech/activate?user_code=AB')).toBe(true);
    expect(isSafeWebUrl('http://localhost:1/activate')).toBe(true);
    for (const bad of ['http://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,x']) expect(isSafeWebUrl(bad)).toBe(false);
  });
});

describe('cursor paths', () => {
  it('honours AGENTSTACK_CURSOR_DIR and names every file once', () => {
    const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: '/tmp/x' });
    // an absolute POSIX path; on Windows it resolves onto the current drive (C:\tmp\x)
    const x = resolve('/tmp/x');
    expect(paths.dir).toBe(x);
    expect(paths.mcpJson).toBe(join(x, 'mcp.json'));
    expect(paths.refresh).toBe(join(x, 'agentstack-refresh'));
    expect(paths.capabilities).toBe(join(x, 'agentstack-capabilities.json'));
    expect(paths.deviceLock).toBe(join(x, 'agentstack-device.lock'));
    expect(paths.project).toBe(join(x, 'agentstack-project'));
    // the lock files' names are part of the contract (README troubleshooting, other tools may look for them)
    expect(paths.mcpJsonLock).toBe(join(x, 'mcp.json.lock'));
    expect(paths.refreshLock).toBe(join(x, 'agentstack-refresh.lock'));
    expect(lockPathFor(paths.mcpJson)).toBe(paths.mcpJsonLock);
    expect(lockPathFor(paths.refresh)).toBe(paths.refreshLock);
  });

  it('defaults to ~/.cursor', () => {
    expect(cursorDir({})).toMatch(/\.cursor$/);
  });
});
