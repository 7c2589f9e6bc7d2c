// The sign-in against a deployment that is not ours, approved as a person does it: a real Chromium clicks through
// oidc-provider's own pages (device code input, confirm, its development login and consent). The AS
// (test/fixtures/foreignDeployment.ts) has its issuer on a path, on another origin than the MCP server, and issues
// opaque tokens that the MCP server checks by introspection. Then status, renewal at session start, and sign-out.
// The other profiles approve over HTTP through the same pages (test/integration/foreign-signin.test.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { FOREIGN_PROFILES, startForeignDeployment, type ForeignDeployment } from '../fixtures/foreignDeployment.js';
import { chromiumUnavailableReason, launchChromium } from '../helpers/browser.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { bearer, DEVICE_GRANT, foreignHome, logout, mcpStatus, requestsTo, scopesOf, signIn, startSession, status, type ForeignHome } from '../helpers/foreignSignIn.js';
import { notRunWhen } from '../helpers/notRun.js';

const OUTPUT_DIR = join(REPO_ROOT, 'test-output');
const unavailable = chromiumUnavailableReason();
if (unavailable && process.env.CI) throw new Error(`The real-browser test must run in CI: ${unavailable}`);
if (unavailable) console.warn(`[foreign-signin] skipped: ${unavailable}`);

describe('device sign-in against a foreign oidc-provider deployment, approved in Chromium', notRunWhen(unavailable), () => {
  let browser: Browser;
  let deployment: ForeignDeployment | undefined;
  let home: ForeignHome | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    mkdirSync(OUTPUT_DIR, { recursive: true });
  });
  afterAll(() => browser?.close());
  afterEach(async () => {
    await deployment?.close();
    home?.cleanup();
    deployment = undefined;
    home = undefined;
  });

  it('offline_access only in the AS metadata, mcp:read mcp:write in the resource metadata: a refresh token, renewal, sign-out that revokes', async () => {
    const d = (deployment = await startForeignDeployment(FOREIGN_PROFILES['offline-access-in-as-only']));
    const h = (home = foreignHome(d));
    const result = await signIn(d, h, { browser, screenshot: join(OUTPUT_DIR, 'foreign-signin-approved.png') });

    // What the device authorization request carried: the resource metadata's scopes, plus offline_access because
    // the AS lists it (SEP-2207), and the resource metadata's resource (RFC 8707).
    const device = requestsTo(d, 'device_authorization')[0]!;
    expect(scopesOf(device.params)).toEqual(['mcp:read', 'mcp:write', 'offline_access']);
    expect(device.params.resource).toBe(d.resource);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized', server_url: d.mcpUrl });
    expect(result.code).toBe(0);
    expect(requestsTo(d, 'token', DEVICE_GRANT).at(-1)!.params.resource).toBe(d.resource);
    const first = bearer(h);
    expect(await mcpStatus(d, first)).toBe(200);
    expect(`${result.stdout}${result.stderr}`).not.toContain(first!);

    const before = await status(h);
    expect(before.json).toMatchObject({ signed_in: true, refresh_stored: true });
    expect(before.json.expires_at).not.toBeNull();

    // The token lives 90 s, inside the renewal window: the session start renews it with the refresh token.
    const started = await startSession(h);
    expect(started.code).toBe(0);
    const refresh = requestsTo(d, 'token', 'refresh_token');
    expect(refresh.length).toBeGreaterThan(0);
    for (const r of refresh) expect({ resource: r.params.resource, status: r.status }).toEqual({ resource: d.resource, status: 200 });
    expect(bearer(h)).not.toBe(first);
    expect(await mcpStatus(d, bearer(h))).toBe(200);

    const out = await logout(h);
    expect(out.code).toBe(0);
    const revocations = requestsTo(d, 'revocation');
    expect(revocations.length).toBeGreaterThan(0);
    expect(out.text).toContain(d.revocationEndpoint);
    expect(bearer(h)).toBeNull();
    const revoked = revocations.map((r) => r.params.token).find((t) => t && t !== first);
    expect(revoked && (await d.introspect(revoked)).active).toBe(false);
  }, 90_000);

  it('a 401 challenge with scope="mcp:read": that scope is asked (plus offline_access, which the AS lists), and the sign-in works', async () => {
    const d = (deployment = await startForeignDeployment(FOREIGN_PROFILES['challenge-scope']));
    const h = (home = foreignHome(d));
    const result = await signIn(d, h, { browser });
    expect(scopesOf(requestsTo(d, 'device_authorization')[0]?.params)).toEqual(['mcp:read', 'offline_access']);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    expect(await mcpStatus(d, bearer(h))).toBe(200);
    expect((await status(h)).json).toMatchObject({ signed_in: true, refresh_stored: true });
  }, 90_000);
});
