/**
 * A person whose refresh token was refused, on a Cursor that drops session start's card, gets from the failed call
 * to signed in again through the channels Cursor enforces alone: the pre-MCP hook's user_message, and what the agent
 * relays from /agentstack-authorize. The host is our own simulation (test/helpers/cursorHost.ts); the plugin is an
 * installed copy, the server the reference core over real HTTP.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { refresh as coreRefresh } from '../../core/testing.js';
import { readHookRuns } from '../../lib/agentstack/plugin/hookRuns.js';
import { tempDir } from '../helpers/repo.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { signInWith, stopBackgroundSignIn } from '../helpers/sessionStart.js';
import { CursorHost, codeAndLink } from '../helpers/cursorHost.js';

let core: RunningCore;
let home: ReturnType<typeof tempDir>;
let host: CursorHost;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());

function newHost(env: Record<string, string> = {}): CursorHost {
  const pluginRoot = join(home.path, '.cursor', 'plugins', 'local', 'agentstack');
  mkdirSync(pluginRoot, { recursive: true });
  copyPlugin(pluginRoot);
  return new CursorHost({ pluginRoot, home: home.path, env: { AGENTSTACK_BASE_URL: core.baseUrl, NO_PROXY: '127.0.0.1', ...env } });
}

/** Signed in with an access token that has already expired and a refresh token the server will refuse. */
async function refusedRefreshToken(): Promise<void> {
  const issued = await core.issueTokens({ accessTokenTtl: 1 });
  await signInWith(host.cursorDir, core.baseUrl, issued);
  await coreRefresh(core.baseUrl, issued.refresh_token!); // used once: replaying it is refused (invalid_grant)
  await new Promise((r) => setTimeout(r, 1_500));
}

const list = { steps: [{ id: 'p', action: 'projects.list' }] };
const last = (items: string[]) => items[items.length - 1] ?? '';

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeEach(() => {
  home = tempDir();
});
afterEach(() => {
  stopBackgroundSignIn(join(home.path, '.cursor'));
  home.cleanup();
});

describe('a Cursor that drops the session card', () => {
  it('refused refresh token, automatic sign-in: the failed call shows the running sign-in\'s code and link; approving it signs in again', async () => {
    host = newHost();
    await refusedRefreshToken();
    const before = host.entry().headers.Authorization;

    await host.startSession();
    expect(host.dropped.join('\n')).toContain('invalid_grant'); // what the card said, and no one saw
    expect(host.person).toEqual([]);
    // What the agent always reads, hooks or not: what to do when AgentStack's tools are unauthorized.
    expect(host.alwaysAppliedRules().join('\n')).toMatch(/run `\/agentstack-authorize`/);

    // The agent's first call: the hook asks, and says what to do; the person declines this call.
    expect(await host.callTool('agentstack.execute', list, () => false)).toEqual({ kind: 'blocked', by: 'person' });
    const told = codeAndLink(last(host.person));
    expect(told, last(host.person)).not.toBeNull();
    expect(told!.link.startsWith(`${core.baseUrl}/`)).toBe(true);
    expect(last(host.agent)).toContain(told!.code);

    // Allowed anyway (it could have gone through Connect): it fails, and the hook does not ask again at once.
    const failed = await host.callTool('agentstack.execute', list);
    expect(failed.kind === 'failed' || (failed.kind === 'result' && failed.isError)).toBe(true);
    expect(host.person).toHaveLength(1);

    // The person opens the link and approves the code; the background sign-in writes the new token.
    await core.approve(told!.code);
    await until('the new token in mcp.json', () => host.entry().headers.Authorization !== before);

    const ok = await host.callTool('agentstack.execute', list);
    expect(ok).toMatchObject({ kind: 'result', isError: false });
    expect(host.person).toHaveLength(1);
    const runs = readHookRuns(join(host.cursorDir, 'agentstack-hook-runs.json'));
    expect(runs['session-start']?.cursor_version).toBe('3.20.17');
    expect(runs['pre-mcp']?.outcome).toBe('neutral');
  }, 90_000);

  it('refused refresh token, automatic sign-in off: the failed call says /agentstack-authorize; the relayed code signs in again', async () => {
    host = newHost({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    await refusedRefreshToken();

    await host.startSession();
    expect(await host.callTool('agentstack.execute', list, () => false)).toEqual({ kind: 'blocked', by: 'person' });
    expect(last(host.person)).toContain('Sign in again with /agentstack-authorize');
    expect(last(host.agent)).toContain('/agentstack-authorize');

    // The person types the command; the agent runs it and relays the code and link; the person approves.
    const seen = host.person.length;
    const command = host.slashCommand('agentstack-authorize');
    await until('the relayed code', () => host.person.length > seen);
    const told = codeAndLink(last(host.person));
    expect(told, last(host.person)).not.toBeNull();
    expect(told!.link.startsWith(`${core.baseUrl}/`)).toBe(true);
    await core.approve(told!.code);
    expect((await command).code).toBe(0);
    expect(last(host.person)).toBe('Signed in to AgentStack.');

    expect(await host.callTool('agentstack.execute', list)).toMatchObject({ kind: 'result', isError: false });
  }, 90_000);
});
