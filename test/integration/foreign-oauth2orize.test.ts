// Sign-in, --status, renewal and sign-out of the built plugin against a second foreign authorization server, on
// another library than oidc-provider: oauth2orize with oauth2orize-device-code (test/fixtures/oauth2orizeDeployment.ts),
// with the profiles that broke the plugin there: an access token audience that is not an http(s) URL
// (`api://agentstack-mcp`), client authentication by HTTP Basic only, revocation only for clients that authenticate,
// `authorization_pending` as 401 with a challenge, Google's spelling of the device answer, and JWT access tokens the
// server cannot revoke. What the plugin sent is read at the servers.
import { afterEach, describe, expect, it } from 'vitest';
import { OAUTH2ORIZE_CLIENT_ID, OAUTH2ORIZE_PROFILES, startOauth2orizeDeployment, type Oauth2orizeDeployment, type Oauth2orizeProfile } from '../fixtures/oauth2orizeDeployment.js';
import { bearer, DEVICE_GRANT, foreignHome, logout, mcpStatus, requestsTo, startSession, status, type ForeignHome } from '../helpers/foreignSignIn.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { DEVICE_CODE_SCRIPT } from '../helpers/deviceCode.js';
import { spawn } from 'node:child_process';
import { baseChildEnv } from '../helpers/platform.js';

let deployment: Oauth2orizeDeployment | undefined;
let home: ForeignHome | undefined;
afterEach(async () => {
  await deployment?.close();
  home?.cleanup();
  deployment = undefined;
  home = undefined;
});

async function start(profile: Oauth2orizeProfile, env: Record<string, string> = {}): Promise<{ d: Oauth2orizeDeployment; h: ForeignHome }> {
  deployment = await startOauth2orizeDeployment(OAUTH2ORIZE_PROFILES[profile]);
  home = foreignHome(deployment, { AGENTSTACK_OAUTH_CLIENT_ID: OAUTH2ORIZE_CLIENT_ID, ...env });
  return { d: deployment, h: home };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `device-code --json --no-browser`; when it shows a code, the person approves it (after `approveAfter` resolves:
 * the first poll, when a test needs the server to have answered one).
 */
async function signIn(d: Oauth2orizeDeployment, h: ForeignHome, approveAfter?: () => Promise<void>) {
  const run = runDeviceCode({ baseUrl: h.base, cursorDir: h.path, env: h.env, args: ['--json', '--no-browser'] });
  const started = await Promise.race([run.waitFor('device_code'), run.done.then(() => null)]).catch(() => null);
  if (started) {
    await approveAfter?.();
    d.approve(String(started.user_code));
  }
  const done = await run.done;
  const final = [...run.events].reverse().find((e) => e.event === 'authorized' || e.event === 'error');
  return { started, final, code: done.code, said: `${done.stdout}\n${done.stderr}` };
}

/** `device-code --logout --json`: the signed_out event, and the person's words (stderr). */
async function logoutJson(h: ForeignHome): Promise<{ code: number | null; event: Record<string, any>; text: string }> {
  const child = spawn(process.execPath, [DEVICE_CODE_SCRIPT, '--logout', '--json'], {
    env: { ...baseChildEnv(), HOME: h.path, AGENTSTACK_BASE_URL: h.base, AGENTSTACK_CURSOR_DIR: h.path, ...h.env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
  child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, event: JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>, text: stderr };
}

/** Waits until the token endpoint has answered a device-code poll with `status`. */
async function polledWith(d: Oauth2orizeDeployment, status: number): Promise<void> {
  const until = Date.now() + 30_000;
  while (!requestsTo(d, 'token', DEVICE_GRANT).some((r) => r.status === status)) {
    if (Date.now() > until) throw new Error(`no device-code poll answered ${status}`);
    await sleep(50);
  }
}

describe('sign-in against oauth2orize + oauth2orize-device-code', () => {
  // Needs the typed reading of a token's `aud` (a StringOrURI that is not an http(s) URL is not another server).
  it('api://agentstack-mcp audience: sign-in, --status and renewal all treat the token as this server\'s', async () => {
    const { d, h } = await start('api-audience');
    const result = await signIn(d, h);
    expect(result.final, result.said).toMatchObject({ event: 'authorized' });
    expect(await mcpStatus(d, bearer(h))).toBe(200);
    const signedIn = await status(h);
    expect(signedIn.json, JSON.stringify(signedIn.json)).toMatchObject({ signed_in: true, refresh_stored: true });
    expect(JSON.stringify(signedIn.json)).not.toContain('other_server');

    // Inside the renewal window (90 s tokens): session start renews with the stored refresh token, and keeps the Bearer.
    const first = bearer(h);
    const started = await startSession(h);
    expect(started.code).toBe(0);
    expect(requestsTo(d, 'token', 'refresh_token').map((r) => r.status)).toEqual([200]);
    expect(bearer(h)).not.toBeNull();
    expect(bearer(h)).not.toBe(first);
    expect(await mcpStatus(d, bearer(h))).toBe(200);
    expect((await status(h)).json.signed_in).toBe(true);
  }, 90_000);

  it('client_secret_basic only: every endpoint gets the secret by HTTP Basic, never in the body; renewal and sign-out work', async () => {
    const secret = OAUTH2ORIZE_PROFILES['basic-only'].clientSecret;
    const { d, h } = await start('basic-only', { AGENTSTACK_OAUTH_CLIENT_SECRET: secret });
    const result = await signIn(d, h);
    expect(result.final, result.said).toMatchObject({ event: 'authorized' });
    expect(result.said).not.toContain(secret);
    expect((await status(h)).json).toMatchObject({ signed_in: true, refresh_stored: true });

    const first = bearer(h);
    expect((await startSession(h)).code).toBe(0);
    expect(requestsTo(d, 'token', 'refresh_token').map((r) => r.status)).toEqual([200]);
    expect(bearer(h)).not.toBe(first);
    expect(await mcpStatus(d, bearer(h))).toBe(200);

    const out = await logout(h);
    expect(out.code).toBe(0);
    expect(out.text).toContain(`Revoked at ${d.revocationEndpoint}`);
    expect(out.text).not.toContain(secret);
    const revocations = requestsTo(d, 'revocation');
    expect(revocations.map((r) => r.status)).toContain(200);
    for (const request of d.oauth) {
      expect(request, `${request.route} must authenticate by Basic`).toMatchObject({ basicAuth: true });
      expect(request.params.client_secret, `${request.route} must not carry the secret in the body`).toBeUndefined();
    }
    expect(requestsTo(d, 'device_authorization')).toHaveLength(1);
  }, 90_000);

  it('client_secret_basic only and a wrong secret: the server\'s invalid_client is quoted, with what to check; the secret never shown', async () => {
    const wrong = 'not-the-client-secret-5e8a1c3b7d';
    const { d, h } = await start('basic-only', { AGENTSTACK_OAUTH_CLIENT_SECRET: wrong });
    const result = await signIn(d, h);
    expect(result.started).toBeNull();
    expect(result.final?.message, result.said).toMatch(/invalid_client: wrong client secret; the server does not accept this OAuth client: check AGENTSTACK_OAUTH_CLIENT_ID and AGENTSTACK_OAUTH_CLIENT_SECRET/);
    expect(requestsTo(d, 'device_authorization')).toEqual([expect.objectContaining({ basicAuth: true, status: 401 })]);
    expect(result.said).not.toContain(wrong);
  }, 90_000);

  it('revocation only for clients that authenticate: a public client signs out locally and is told why from the metadata, naming the issuer and its own client id', async () => {
    const { d, h } = await start('revocation-needs-auth');
    const result = await signIn(d, h);
    expect(result.final, result.said).toMatchObject({ event: 'authorized' });
    const out = await logoutJson(h);
    expect(out.code).toBe(0);
    expect(bearer(h)).toBeNull();
    expect(requestsTo(d, 'revocation').map((r) => r.status)).toEqual([401]);
    expect(out.event).toMatchObject({ event: 'signed_out', revoked: false, reason: 'needs_client_auth', revoke_at: d.issuer, client_id: OAUTH2ORIZE_CLIENT_ID });
    expect(out.text).toContain(`the authorization server ${d.issuer} revokes only for clients that authenticate (HTTP 401, invalid_client: its revocation_endpoint_auth_methods_supported names client_secret_basic, not none), and the client "${OAUTH2ORIZE_CLIENT_ID}" is a public client with no secret`);
    expect(out.text).toContain(`"${OAUTH2ORIZE_CLIENT_ID}" sign-in in your account at ${d.issuer}`);
    expect(out.text).toContain('cannot be revoked at the server from here');
    expect(out.text).not.toMatch(/cursor-plugin|AGENTSTACK_OAUTH_CLIENT_SECRET|check .*secret/i);
    expect(out.text).not.toContain(`at ${new URL(d.mcpUrl).origin}`);
  }, 90_000);

  it('authorization_pending as 401 with WWW-Authenticate: the sign-in keeps polling and completes', async () => {
    const { d, h } = await start('pending-401');
    const result = await signIn(d, h, () => polledWith(d, 401));
    expect(result.final, result.said).toMatchObject({ event: 'authorized' });
    expect(requestsTo(d, 'token', DEVICE_GRANT).map((r) => r.status)).toContain(401);
    expect(await mcpStatus(d, bearer(h))).toBe(200);
  }, 90_000);

  it('Google\'s device answer (verification_url, interval "1"): accepted as verification_uri and a 1 s interval', async () => {
    const { d, h } = await start('google-style');
    const result = await signIn(d, h, () => polledWith(d, 403));
    expect(result.started?.verification_uri, result.said).toBe(`${d.issuer}/activate`);
    expect(result.final, result.said).toMatchObject({ event: 'authorized' });
    expect(await mcpStatus(d, bearer(h))).toBe(200);
  }, 90_000);

  it('a JWT access token the server cannot revoke: unsupported_token_type is said as the server\'s answer, not as a failure', async () => {
    const { d, h } = await start('jwt-no-refresh');
    const result = await signIn(d, h);
    expect(result.final, result.said).toMatchObject({ event: 'authorized' });
    const out = await logoutJson(h);
    expect(out.code).toBe(0);
    expect(requestsTo(d, 'revocation').map((r) => r.status)).toEqual([400]);
    expect(out.event).toMatchObject({ revoked: false, reason: 'unsupported_token_type' });
    expect(out.text).toContain('The server does not revoke access tokens (it answered unsupported_token_type, RFC 7009 §2.2.1)');
    expect(out.text).not.toMatch(/could not be revoked|failed/);
  }, 90_000);
});
