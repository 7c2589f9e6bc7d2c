/**
 * Signing out while session starts run: `device-code --logout` and session-start (refreshing an expiring token)
 * at once, over several rounds. Whatever the interleaving, nothing is lost and the sign-out sticks: mcp.json is
 * valid with every other server as it was, the agentstack entry has no credential, the refresh token, identity
 * cache and snapshot are gone, no sign-in was started, and the grant is revoked at the server.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { refresh } from '../../core/testing.js';
import { crowdedMcpJson } from '../helpers/fixtures.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { tempDir } from '../helpers/repo.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';

let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  tmp = tempDir('agentstack-logout-race-');
});
afterAll(async () => {
  await core?.close();
  tmp?.cleanup();
});

const ROUNDS = 4;

describe('--logout racing session-start', () => {
  it(`${ROUNDS} rounds of one --logout and two session starts refreshing an expiring token: nothing lost, the sign-out sticks`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = join(tmp.path, `r${round}`);
      const base = crowdedMcpJson(12);
      const others = base.mcpServers as Record<string, unknown>;
      mkdirSync(dir);
      writeFileSync(join(dir, 'mcp.json'), `${JSON.stringify(base, null, 2)}\n`);
      // 60 s access tokens: inside session-start's refresh window, so each session start refreshes.
      const tokens = await core.issueTokens({ accessTokenTtl: 60 });
      await signInWith(dir, core.baseUrl, tokens);
      const authorizations = core.counters.deviceAuthorizations;

      // The sign-out starts a little later each round, so it meets the session starts at different steps.
      const starts = [sessionStart(dir, core.baseUrl), sessionStart(dir, core.baseUrl)];
      await new Promise((resolve) => setTimeout(resolve, round * 120));
      const logout = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir, args: ['--logout', '--json'] });
      const [out, ...cards] = await Promise.all([logout.done, ...starts]);
      expect(out.code, out.stderr).toBe(0);
      expect(logout.events[0]).toMatchObject({ event: 'signed_out', was_signed_in: true, revoked: true });
      for (const card of cards) expect(card.code).toBe(0);

      const after = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, Record<string, unknown>>; someOtherTopLevelKey: unknown };
      expect(after.someOtherTopLevelKey).toEqual({ keep: true });
      for (const [name, server] of Object.entries(others)) expect(after.mcpServers[name], name).toEqual(server);
      expect(after.mcpServers.agentstack).toEqual({ type: 'http', url: `${core.baseUrl}/mcp` });
      for (const name of ['agentstack-refresh', 'agentstack-identity.json', 'agentstack-capabilities.json', 'agentstack-device.lock']) {
        expect(existsSync(join(dir, name)), `round ${round}: ${name}`).toBe(false);
      }
      expect(existsSync(join(dir, 'agentstack-signed-out'))).toBe(true);
      expect(core.counters.deviceAuthorizations).toBe(authorizations);
      // The grant is revoked whichever refresh token was current when the sign-out took the lock.
      expect((await refresh(core.baseUrl, tokens.refresh_token!)).body.error).toBe('invalid_grant');
      const later = String((await sessionStart(dir, core.baseUrl)).json.additional_context);
      expect(later).toContain('- Account: signed out');
    }
  }, 120_000);
});

describe('--logout while a sign-in finishes', () => {
  it('approved, its credential written, still fetching the snapshot and who signed in: nothing of that sign-in stays, and the warning says it was finishing', async () => {
    const dir = join(tmp.path, 'finishing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'mcp.json'), `${JSON.stringify(crowdedMcpJson(3), null, 2)}\n`);
    // The first best-effort step after the credential write (clearing the server's tool cache) is held 3 s.
    core.setFaults({ endpointFaults: { cache_clear: { kind: 'slow', delayMs: 3_000, times: 1 } } });
    try {
      const signIn = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir, args: ['--json', '--no-browser'] });
      const code = await signIn.waitFor('device_code');
      await core.approve(String(code.user_code));
      const end = Date.now() + 20_000;
      while (!readFileSync(join(dir, 'mcp.json'), 'utf8').includes('Bearer ') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      const logout = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir, args: ['--logout', '--json'] });
      const out = await logout.done;
      expect(out.code, out.stderr).toBe(0);
      const warnings = (logout.events[0] as { warnings?: string[] }).warnings ?? [];
      expect(warnings.join('\n')).not.toMatch(/still waiting for approval/);
      expect(warnings.join('\n')).toMatch(/was finishing/);
      await signIn.done;
      for (const name of ['agentstack-refresh', 'agentstack-identity.json', 'agentstack-capabilities.json']) {
        expect(existsSync(join(dir, name)), name).toBe(false);
      }
      const after = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> };
      expect(after.mcpServers.agentstack).toEqual({ type: 'http', url: `${core.baseUrl}/mcp` });
      expect(existsSync(join(dir, 'agentstack-signed-out'))).toBe(true);
    } finally {
      core.setFaults({ endpointFaults: {} });
    }
  }, 60_000);
});
