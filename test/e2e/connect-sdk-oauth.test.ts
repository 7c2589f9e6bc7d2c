/**
 * What Cursor's Connect button does, done by a client we did not write: the MCP SDK's own OAuth client (`auth()` with
 * an `OAuthClientProvider`) discovers the core from /mcp (RFC 9728, RFC 8414), registers itself by dynamic client
 * registration with the scopes the server advertises, runs authorization code + PKCE S256 with `resource` through a
 * real Chromium on the core's sign-in and consent pages, exchanges the code, and lists tools with the token it got.
 * verify's oauth.connect_ready then PASSes on the same core, and FAILs on a core whose registration refuses them.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt } from '../../core/testing.js';
import type { Check } from '../../lib/platform/report.js';
import { chromiumUnavailableReason, launchChromium } from '../helpers/browser.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { notRunWhen } from '../helpers/notRun.js';

const unavailable = chromiumUnavailableReason();
if (unavailable && process.env.CI) throw new Error(`The real-browser test must run in CI: ${unavailable}`);
if (unavailable) console.warn(`[connect-sdk-oauth] skipped: ${unavailable}`);

/** Cursor's Connect is a public native client with a loopback redirect; nothing listens there, the browser stops at it. */
const REDIRECT = 'http://127.0.0.1:33418/callback';

class ConnectLikeProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'Connect (MCP SDK client)',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  state() {
    return 'connect-state-0123456789';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Records what the SDK client sent to the registration endpoint, passing every request through unchanged. */
function recordingFetch(seen: Array<{ url: string; body?: string }>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    seen.push({ url, ...(typeof init?.body === 'string' ? { body: init.body } : {}) });
    return fetch(input, init);
  }) as typeof fetch;
}

async function verifyConnectReady(core: RunningCore): Promise<Check> {
  const dir = tempDir();
  try {
    const script = join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs');
    const out = await promisify(execFile)(process.execPath, [script, '--base-url', core.baseUrl, '--json'], { env: { PATH: process.env.PATH ?? '', AGENTSTACK_CURSOR_DIR: dir.path }, timeout: 30_000 })
      .catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    return (JSON.parse(out.stdout) as { checks: Check[] }).checks.find((c) => c.id === 'oauth.connect_ready')!;
  } finally {
    dir.cleanup();
  }
}

describe('Connect with the MCP SDK\'s OAuth client through a real browser', notRunWhen(unavailable), () => {
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ port: 0 });
  });
  afterAll(() => core?.close());

  it('DCR with the advertised scopes, code + PKCE S256 + resource in Chromium, then tools/list with the token', async () => {
    const provider = new ConnectLikeProvider();
    const seen: Array<{ url: string; body?: string }> = [];
    const fetchFn = recordingFetch(seen);
    expect(await auth(provider, { serverUrl: core.mcpUrl, fetchFn })).toBe('REDIRECT');

    // Registration: the SDK sent the scopes the server advertises (RFC 9728 scopes_supported), and the core took them.
    const prm = (await (await fetch(`${core.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
    const registration = seen.find((s) => s.url.endsWith('/api/oauth2/register'))!;
    expect(JSON.parse(registration.body!).scope).toBe(prm.scopes_supported.join(' '));
    expect(provider.client?.client_id).toBeTruthy();

    const url = provider.authorizationUrl!;
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(core.mcpUrl);
    expect(url.searchParams.get('client_id')).toBe(provider.client!.client_id);

    const browser = await launchChromium();
    let redirectedTo = '';
    try {
      const page = await browser.newPage();
      await page.route(`${REDIRECT}**`, async (route) => {
        redirectedTo = route.request().url();
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<p id="done">You can close this window.</p>' });
      });
      await page.goto(url.href);
      const account = core.accounts[0]!;
      await page.fill('#email', account.email);
      await page.fill('#password', account.password);
      await page.click('button[name=login]');
      await page.click('button[name=confirm]');
      await page.waitForSelector('#done');
    } finally {
      await browser.close();
    }
    const back = new URL(redirectedTo);
    expect(back.searchParams.get('state')).toBe('connect-state-0123456789');
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();

    expect(await auth(provider, { serverUrl: core.mcpUrl, authorizationCode: code!, fetchFn })).toBe('AUTHORIZED');
    const accessToken = provider.saved!.access_token;
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({ aud: core.mcpUrl, email: core.accounts[0]!.email });
    expect(String(claims.scope).split(' ')).toEqual(expect.arrayContaining(['profile:read', 'actions:execute']));

    const client = new Client({ name: 'connect-sdk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(core.mcpUrl), { authProvider: provider }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['agentstack.execute']);
      const ping = await client.callTool({ name: 'agentstack.execute', arguments: { steps: [{ id: 'p', action: 'system.ping' }] } });
      expect(ping.isError).not.toBe(true);
    } finally {
      await client.close();
    }

    // The same core: verify says Connect is ready, and says what it ran to know it.
    const ready = await verifyConnectReady(core);
    expect(ready).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/registered a public client with the advertised scopes/) });
  }, 60_000);
});
