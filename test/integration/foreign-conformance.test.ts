// The MCP conformance suite's client auth scenarios that apply to a device client, reproduced from
// @modelcontextprotocol/conformance 0.1.16 (dist/index.js, the `auth/*` scenario classes). That suite cannot drive
// this client: its test authorization server offers only the authorization-code flow (no
// device_authorization_endpoint), so a device client correctly stops there. Its checks read the client's
// authorization request at the server; a device client's authorization request is its RFC 8628 §3.1 device
// authorization request, which carries the same `scope` and `resource`. So each case below runs the built
// device-code.mjs against the foreign oidc-provider deployment (test/fixtures/foreignDeployment.ts) set up as the
// scenario's servers are, reads that request from the deployment's own record, and applies the scenario's check
// (same id, same pass condition). The suite grades some of these WARNING or INFO; the MCP spec's scope rules and
// SEP-2207 as this plugin follows them make each a requirement here, so anything but SUCCESS fails.
import { afterEach, describe, expect, it } from 'vitest';
import { FOREIGN_PROFILES, startForeignDeployment, type ForeignDeployment, type ForeignOptions } from '../fixtures/foreignDeployment.js';
import { foreignHome, requestsTo, signIn, type ForeignHome, type SignInResult } from '../helpers/foreignSignIn.js';
import { runDeviceCode } from '../helpers/deviceCode.js';

type Status = 'SUCCESS' | 'WARNING' | 'FAILURE' | 'INFO';
interface Check { id: string; status: Status; details: Record<string, unknown> }

let deployment: ForeignDeployment | undefined;
let home: ForeignHome | undefined;
afterEach(async () => {
  await deployment?.close();
  home?.cleanup();
  deployment = undefined;
  home = undefined;
});

/** Runs the sign-in up to the code (no approval): the checks need only what the client asked for. */
async function deviceRequest(options: ForeignOptions): Promise<{ d: ForeignDeployment; run: SignInResult; scope: string | undefined; made: boolean }> {
  deployment = await startForeignDeployment(options);
  home = foreignHome(deployment);
  const run = await signIn(deployment, home, { approve: false });
  const request = requestsTo(deployment, 'device_authorization')[0];
  return { d: deployment, run, scope: request?.params.scope, made: request !== undefined };
}

const split = (scope: string | undefined) => (scope ? scope.split(' ') : []);

describe('MCP conformance (client auth scenarios for a device client), read from the device authorization request', () => {
  it('auth/scope-from-www-authenticate: the scope of the 401 challenge is requested', async () => {
    const { scope, run } = await deviceRequest(FOREIGN_PROFILES['challenge-scope']);
    const expectedScope = 'mcp:read';
    const ok = split(scope).includes(expectedScope);
    const check: Check = { id: 'scope-from-www-authenticate', status: ok ? 'SUCCESS' : 'WARNING', details: { expectedScope, requestedScope: scope || 'none' } };
    expect(check, run.stderr).toMatchObject({ status: 'SUCCESS' });
  }, 30_000);

  it('auth/scope-from-scopes-supported: without a challenge scope, every scope of the resource metadata is requested', async () => {
    const { scope, run } = await deviceRequest(FOREIGN_PROFILES['offline-access-in-as-only']);
    const scopesSupported = ['mcp:read', 'mcp:write'];
    const requested = split(scope);
    const ok = scopesSupported.every((s) => requested.includes(s));
    const check: Check = { id: 'scope-from-scopes-supported', status: ok ? 'SUCCESS' : 'WARNING', details: { scopesSupported: scopesSupported.join(' '), requestedScope: scope || 'none' } };
    expect(check, run.stderr).toMatchObject({ status: 'SUCCESS' });
  }, 30_000);

  it('auth/scope-omitted-when-undefined: no scopes_supported and no challenge scope: the scope parameter is omitted', async () => {
    const { scope, made, run } = await deviceRequest(FOREIGN_PROFILES['no-scopes-advertised']);
    expect(made, `the client must still make its device authorization request: ${run.stderr}`).toBe(true);
    const ok = !scope || scope.trim() === '';
    const check: Check = { id: 'scope-omitted-when-undefined', status: ok ? 'SUCCESS' : 'WARNING', details: { scopeParameter: ok ? 'omitted' : scope } };
    expect(check).toMatchObject({ status: 'SUCCESS' });
  }, 30_000);

  it('auth/offline-access-scope (SEP-2207): the AS lists offline_access, so the client that wants a refresh token asks for it', async () => {
    const { scope, d, run } = await deviceRequest(FOREIGN_PROFILES['offline-access-in-as-only']);
    const as = (await (await fetch(`${d.issuer}/.well-known/openid-configuration`)).json()) as { scopes_supported?: string[] };
    expect(as.scopes_supported).toContain('offline_access');
    const ok = split(scope).includes('offline_access');
    const check: Check = { id: 'sep-2207-offline-access-requested', status: ok ? 'SUCCESS' : 'INFO', details: { asScopesSupported: as.scopes_supported?.join(' '), requestedScope: scope || 'none' } };
    expect(check, run.stderr).toMatchObject({ status: 'SUCCESS' });
  }, 30_000);

  it('auth/offline-access-not-supported (SEP-2207): the AS does not list offline_access, so it is not requested', async () => {
    const { scope, d, made, run } = await deviceRequest(FOREIGN_PROFILES['expires-no-refresh']);
    const as = (await (await fetch(`${d.issuer}/.well-known/openid-configuration`)).json()) as { scopes_supported?: string[] };
    expect(as.scopes_supported).not.toContain('offline_access');
    expect(made, run.stderr).toBe(true);
    const requested = split(scope).includes('offline_access');
    const check: Check = { id: 'sep-2207-offline-access-not-requested', status: requested ? 'FAILURE' : 'SUCCESS', details: { requestedScope: scope || 'none' } };
    expect(check).toMatchObject({ status: 'SUCCESS' });
  }, 30_000);

  it('auth/resource-mismatch: resource metadata naming another resource stops the client before any authorization request', async () => {
    const prmResource = 'https://evil.example.com/mcp';
    const { d, made, run } = await deviceRequest({ resourceMetadataResource: prmResource });
    const check: Check = { id: 'resource-mismatch-rejected', status: made ? 'FAILURE' : 'SUCCESS', details: { prmResource, authorizationRequestMade: made } };
    expect(check).toMatchObject({ status: 'SUCCESS' });
    // Beyond the suite's check: nor anywhere else (no built-in endpoint on the MCP server's origin), and it says so.
    expect(d.mcpRequests.filter((r) => r.path.startsWith('/api/oauth2/'))).toEqual([]);
    expect(run.started).toBeNull();
    expect(run.code).not.toBe(0);
    expect(run.stderr + run.stdout).toContain(prmResource);
    expect(run.stderr + run.stdout).toContain(d.resource);
  }, 30_000);

  it('the sign-in\'s own request trace (--debug) shows the same device authorization request, and the challenge unmasked', async () => {
    deployment = await startForeignDeployment(FOREIGN_PROFILES['challenge-scope']);
    home = foreignHome(deployment);
    const run = runDeviceCode({ baseUrl: home.base, cursorDir: home.path, env: home.env, args: ['--json', '--no-browser', '--debug'] });
    await run.waitFor('device_code');
    run.child.kill('SIGTERM');
    const { stderr } = await run.done;
    const entries = stderr.split(/^\[api\] /m);
    const deviceEntry = entries.find((e) => e.split('\n')[0]!.includes(`POST ${deployment!.issuer}/device/auth `));
    expect(deviceEntry, stderr).toBeDefined();
    const body = deviceEntry!.split('\n').find((l) => /^ {2}> (?![\w-]+: )/.test(l))!.slice(4);
    const traced = Object.fromEntries(new URLSearchParams(body));
    const received = requestsTo(deployment, 'device_authorization')[0]!.params;
    expect({ scope: traced.scope, resource: traced.resource }).toEqual({ scope: received.scope, resource: received.resource });
    // A challenge's auth-params are not secrets: the trace must show where the metadata is and which scope is asked.
    const challenge = entries.find((e) => e.split('\n')[0]!.includes(`${deployment!.mcpUrl} -> 401`));
    expect(challenge).toContain(`resource_metadata="${deployment.resourceMetadataUrl}"`);
    expect(challenge).toContain('scope="mcp:read"');
  }, 30_000);
});
