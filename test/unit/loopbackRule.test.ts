import { describe, expect, it } from 'vitest';
import { assertOpenableUrl, isOpenableUrl, openInBrowser } from '../../lib/agentstack/signIn/browser.js';
import { shownSignInUrl, signInOrigins } from '../../lib/agentstack/signIn/lock.js';

// Plain http goes to loopback only when the MCP URL itself is plain http on loopback: an https server must not make
// the plugin (or the person's browser) a plain-http client of the person's own loopback services.
const HTTPS_MCP = 'https://agentstack.tech/mcp';
const LOOPBACK_MCP = 'http://127.0.0.1:8080/mcp';
const LOOPBACK_PAGES = ['http://127.0.0.1:9/activate', 'http://localhost:9/activate?user_code=AB', 'http://[::1]:9/device'];

describe('a verification URL may be shown and opened', () => {
  it.each(LOOPBACK_PAGES)('%s: not for an https MCP server', async (url) => {
    expect(isOpenableUrl(url, HTTPS_MCP)).toBe(false);
    expect(() => assertOpenableUrl(url, 'verification URL', HTTPS_MCP)).toThrow(expect.objectContaining({ code: 'unsafe_url' }));
    const calls: string[] = [];
    await expect(openInBrowser(url, { mcpUrl: HTTPS_MCP, opener: async (u) => void calls.push(u), env: { DISPLAY: ':0' }, platform: 'linux' })).rejects.toMatchObject({ code: 'unsafe_url' });
    expect(calls).toEqual([]);
  });

  it.each(LOOPBACK_PAGES)('%s: yes for an MCP server on plain http to loopback', async (url) => {
    expect(isOpenableUrl(url, LOOPBACK_MCP)).toBe(true);
    const calls: string[] = [];
    expect(await openInBrowser(url, { mcpUrl: LOOPBACK_MCP, opener: async (u) => void calls.push(u), env: { DISPLAY: ':0' }, platform: 'linux' })).toBe('opened');
    expect(calls).toEqual([url]);
  });

  it('https is openable for either; plain http elsewhere for neither', () => {
    for (const mcp of [HTTPS_MCP, LOOPBACK_MCP]) {
      expect(isOpenableUrl('https://auth.example/device', mcp)).toBe(true);
      expect(isOpenableUrl('http://auth.example/device', mcp)).toBe(false);
    }
    // The MCP URL on loopback but https, or on plain http elsewhere, allows no plain http.
    expect(isOpenableUrl('http://127.0.0.1:9/a', 'https://127.0.0.1:8443/mcp')).toBe(false);
  });
});

describe('a running sign-in shows its page only on origins the rule allows', () => {
  it('a plain-http loopback endpoint names no origin for an https server', () => {
    const origins = signInOrigins('https://agentstack.tech', ['http://127.0.0.1:9/oauth/token', 'https://auth.agentstack.tech/token']);
    expect(origins).toEqual(['https://agentstack.tech', 'https://auth.agentstack.tech']);
    expect(shownSignInUrl('http://127.0.0.1:9/activate', origins)).toBeNull();
  });

  it('it does for a server on plain http to loopback', () => {
    const origins = signInOrigins('http://127.0.0.1:8080', ['http://localhost:9/oauth/token']);
    expect(origins).toEqual(['http://127.0.0.1:8080', 'http://localhost:9']);
    expect(shownSignInUrl('http://localhost:9/activate', origins)).toBe('http://localhost:9/activate');
  });
});
