/**
 * A refresh in flight must not undo a new sign-in. Fault: the token endpoint answers the session-start refresh
 * 4 s late (the core's `slow` fault); meanwhile the person signs in again with a narrower grant. Outcome: mcp.json
 * and agentstack-refresh hold the new grant once both have finished, and a refresh whose credential was replaced
 * while it waited (even by a writer that holds no lock) writes nothing and clears nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OAUTH_ROUTES, startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt } from '../../core/testing.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { applyBearer } from '../../lib/agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { readRefreshFile, writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { refreshSingleFlight } from '../../lib/agentstack/auth/tokenRefresh.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { SCOPE_PRESETS, scopeStringFor } from '../../lib/agentstack/auth/scopes.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { tempDir } from '../helpers/repo.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir('agentstack-race-');
  core.setFaults({ endpointFaults: {} });
});
afterEach(() => dir.cleanup());

const tokenRequests = () => core.counters.requests[`POST ${OAUTH_ROUTES.token}`] ?? 0;
const bearer = () => bearerOf(JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8')));
const stored = () => readRefreshFile(join(dir.path, 'agentstack-refresh'));

async function untilTokenRequest(before: number): Promise<void> {
  for (let i = 0; i < 200 && tokenRequests() <= before; i++) await new Promise((r) => setTimeout(r, 25));
  expect(tokenRequests()).toBeGreaterThan(before);
}

describe('a refresh in flight and a new sign-in', () => {
  it('device-code --scope-preset readonly during a slow session-start refresh: the read-only grant stays', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens({ accessTokenTtl: 30 }));
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 4_000, times: 1 } } });
    const before = tokenRequests();
    const hook = sessionStart(dir.path, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    await untilTokenRequest(before);
    const signIn = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path, args: ['--json', '--no-browser', '--scope-preset', 'readonly'] });
    const code = await signIn.waitFor('device_code');
    await core.approve(String(code.user_code));
    const [signedIn, hooked] = await Promise.all([signIn.done, hook]);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(hooked.code).toBe(0);

    const authorized = signIn.events.find((e) => e.event === 'authorized');
    expect(authorized).toBeTruthy();
    const caps = decodeJwt(bearer()!).caps as string[];
    expect([...caps].sort()).toEqual([...SCOPE_PRESETS.readonly].sort());
    expect(stored()?.scope?.split(' ').sort()).toEqual([...SCOPE_PRESETS.readonly].sort());
  }, 40_000);

  it('a credential replaced while the refresh waited (by a writer without the lock) is neither overwritten nor cleared', async () => {
    const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
    const env = { AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl };
    const full = await core.issueTokens({ accessTokenTtl: 30 });
    const readonly = await core.issueTokens({ scope: scopeStringFor('readonly') });

    // 1. the refresh succeeds, late
    await signInWith(dir.path, core.baseUrl, full);
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 2_000, times: 1 } } });
    let before = tokenRequests();
    const refreshing = refreshSingleFlight({ paths, env, baseUrl: core.baseUrl, deadline: Date.now() + 8_000, seenToken: full.access_token });
    await untilTokenRequest(before);
    await signInWith(dir.path, core.baseUrl, readonly);
    expect((await refreshing).kind).toBe('superseded');
    expect(bearer()).toBe(readonly.access_token);
    expect(stored()?.refresh_token).toBe(readonly.refresh_token);

    // 2. the refresh is refused (invalid_grant), late: the new grant's refresh token is not cleared
    await signInWith(dir.path, core.baseUrl, full);
    writeRefreshFile(paths.refresh, { ...stored()!, refresh_token: 'revoked-refresh-token-0123456789' });
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 2_000, times: 1 } } });
    before = tokenRequests();
    const refused = refreshSingleFlight({ paths, env, baseUrl: core.baseUrl, deadline: Date.now() + 8_000, seenToken: full.access_token });
    await untilTokenRequest(before);
    await signInWith(dir.path, core.baseUrl, readonly);
    expect((await refused).kind).toBe('superseded');
    expect(bearer()).toBe(readonly.access_token);
    expect(stored()?.refresh_token).toBe(readonly.refresh_token);
  }, 30_000);

  it('a refresh stands down when only one half of the credential changed while it waited: the Bearer, or the refresh token', async () => {
    const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
    const env = { AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl };
    const full = await core.issueTokens({ accessTokenTtl: 30 });
    const other = await core.issueTokens({ scope: scopeStringFor('readonly') });
    /** Starts a refresh the token endpoint answers 2 s late; resolves once its request reached the server. */
    const slowRefresh = async (): Promise<{ outcome: Promise<string> }> => {
      core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 2_000, times: 1 } } });
      const before = tokenRequests();
      const refreshing = refreshSingleFlight({ paths, env, baseUrl: core.baseUrl, deadline: Date.now() + 8_000, seenToken: full.access_token });
      await untilTokenRequest(before);
      return { outcome: refreshing.then((outcome) => outcome.kind) };
    };

    // 1. only the Bearer is replaced (a token pasted into mcp.json): the refresh file stays the one the refresh sent
    await signInWith(dir.path, core.baseUrl, full);
    let waiting = await slowRefresh();
    await updateMcpConfigFile(paths.mcpJson, (config) => applyBearer(config, { token: other.access_token, baseUrl: core.baseUrl }));
    expect(await waiting.outcome).toBe('superseded');
    expect(bearer()).toBe(other.access_token);
    expect(stored()?.refresh_token).toBe(full.refresh_token);

    // 2. only the refresh token is replaced: the Bearer in mcp.json stays the one the refresh saw. The refresh sends the
    //    token step 1 already rotated, so the server refuses it (invalid_grant): the refusal must not clear the new one.
    await signInWith(dir.path, core.baseUrl, full);
    waiting = await slowRefresh();
    writeRefreshFile(paths.refresh, { ...stored()!, refresh_token: other.refresh_token! });
    expect(await waiting.outcome).toBe('superseded');
    expect(bearer()).toBe(full.access_token);
    expect(stored()?.refresh_token).toBe(other.refresh_token);
  }, 30_000);
});
