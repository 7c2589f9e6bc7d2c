/**
 * A token that falls due for renewal during work: the pre-MCP hook starts the single-flight refresh in the background
 * and answers at once. Against a reference core whose token endpoint is slowed, so a hook that waited for the refresh
 * could not answer in time: eight concurrent calls all answer before the refresh lands, exactly one refresh grant
 * reaches the server, and mcp.json holds a new Bearer within seconds.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, sessionStart, signInWith } from '../helpers/sessionStart.js';

const tmp = tempDir('agentstack-renew-');
let core: RunningCore;
afterAll(async () => {
  await core?.close();
  tmp.cleanup();
});
beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});

const bearer = (dir: string) => /Bearer ([^"]+)/.exec(readFileSync(join(dir, 'mcp.json'), 'utf8'))?.[1] ?? null;
const call = (baseUrl: string) => JSON.stringify({
  hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${baseUrl}/mcp`,
  tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.list', params: {} }] }),
});

async function signedInDir(name: string): Promise<string> {
  const dir = join(tmp.path, name);
  mkdirSync(dir);
  await signInWith(dir, core.baseUrl, await core.issueTokens());
  expect((await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).code).toBe(0);
  // Then a token inside the two-minute refresh window, with its refresh token.
  await signInWith(dir, core.baseUrl, await core.issueTokens({ accessTokenTtl: 60 }));
  return dir;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('renewing the token while the person works', { timeout: 60_000 }, () => {
  it('eight concurrent calls: each answered without waiting, one refresh at the server, a new Bearer within seconds', async () => {
    const dir = await signedInDir('burst');
    const old = bearer(dir);
    const grants = core.counters.refreshGrants;
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 3_000 } } });
    try {
      const runs = await Promise.all(Array.from({ length: 8 }, () => runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl), call(core.baseUrl))));
      for (const run of runs) {
        expect(run.code).toBe(0);
        expect(run.json.permission).not.toBe('deny');
      }
      // The slowed refresh cannot have landed yet: none of the hooks waited for it.
      expect(bearer(dir)).toBe(old);
      expect(await until(() => bearer(dir) !== old, 15_000)).toBe(true);
    } finally {
      core.setFaults({ endpointFaults: {} });
    }
    expect(core.counters.refreshGrants - grants).toBe(1);
    const fresh = bearer(dir);
    expect(fresh).not.toBe(old);
  });

  it('nothing starts when automatic sign-in is off, after a sign-out, or without a refresh token', async () => {
    // A renewal starts by claiming its marker in the Cursor dir, in the hook, before the hook answers: no marker once
    // the hook has answered is no renewal, with nothing to wait for. The same check sees one start where one is due.
    const started = (dir: string) => existsSync(join(dir, 'agentstack-renew.started'));
    const grants = core.counters.refreshGrants;
    const off = await signedInDir('off');
    await runHook(PRE_MCP_SCRIPT, [], hookEnv(off, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }), call(core.baseUrl));
    expect(started(off)).toBe(false);
    const out = await signedInDir('signed-out');
    writeFileSync(join(out, 'agentstack-signed-out'), JSON.stringify({ signed_out_at: new Date().toISOString(), server_url: `${core.baseUrl}/mcp` }));
    await runHook(PRE_MCP_SCRIPT, [], hookEnv(out, core.baseUrl), call(core.baseUrl));
    expect(started(out)).toBe(false);
    const none = await signedInDir('none');
    rmSync(join(none, 'agentstack-refresh'));
    await runHook(PRE_MCP_SCRIPT, [], hookEnv(none, core.baseUrl), call(core.baseUrl));
    expect(started(none)).toBe(false);
    // The control: the same token, due, with automatic sign-in on: the marker is there when the hook answers, and
    // the one renewal lands.
    const due = await signedInDir('due');
    const old = bearer(due);
    await runHook(PRE_MCP_SCRIPT, [], hookEnv(due, core.baseUrl), call(core.baseUrl));
    expect(started(due)).toBe(true);
    expect(await until(() => bearer(due) !== old, 30_000)).toBe(true);
    expect(core.counters.refreshGrants - grants).toBe(1);
  });
});
