/**
 * The same contract served differently (the reference core's variants, as another compatible server might serve
 * it): the plugin's outcome must not change. For each variant, the built scripts do what a person's machine does:
 * device-code.mjs signs in, session-start.cjs shows the card, pre-mcp-cap-check.cjs checks three calls. The outcome:
 * the snapshot holds exactly the tenant actions, the card says who signed in and how many actions, a known action
 * passes, an unknown one is denied, and a capability the token lacks is denied (when the token says what it was
 * granted, in whichever claim; a token that says nothing is never denied on capabilities).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, ADMIN_ACTIONS, MANY_ACTIONS, UNICODE_ACTIONS, VARIANT_NAMES, startCore, type RunningCore, type VariantName } from '../../core/index.js';
import { readSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, sessionStart, signInWith } from '../helpers/sessionStart.js';

const TENANT = ACTIONS.filter((a) => a.doc_audience === 'public').map((a) => a.action);
const tmp = tempDir('agentstack-variants-');
afterAll(() => tmp.cleanup());

function expectedActions(variant: VariantName): string[] {
  const names = [...TENANT];
  if (variant === 'unicode-actions') names.push(...UNICODE_ACTIONS);
  if (variant === 'admin-actions') names.push(...ADMIN_ACTIONS.map((a) => a.action));
  if (variant === 'many-actions') for (let i = 0; i < MANY_ACTIONS; i++) names.push(`bulk.op_${String(i).padStart(5, '0')}`);
  return names.sort();
}

describe.each(['none' as const, ...VARIANT_NAMES])('variant %s', (variant) => {
  let core: RunningCore;
  let dir: string;
  beforeAll(async () => {
    core = await startCore({ port: 0, interval: 1, variant: variant === 'none' ? [] : variant });
    dir = join(tmp.path, variant);
    mkdirSync(dir);
  });
  afterAll(async () => core?.close());

  const preMcp = async (action: string) => {
    const stdin = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ id: '1', action }] }), url: `${core.baseUrl}/mcp`, mcp_server_name: 'user-agentstack' });
    const run = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl), stdin);
    expect(run.code).toBe(0);
    return run.json;
  };

  it('sign-in, card and pre-MCP checks come out the same', async () => {
    const device = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir });
    const code = await device.waitFor('device_code');
    await core.approve(String(code.user_code));
    const done = await device.done;
    expect(done.code, done.stderr).toBe(0);
    const expected = expectedActions(variant === 'none' ? 'safe-boolean' : variant);
    const authorized = device.events.find((e) => e.event === 'authorized')!;
    expect(authorized.capabilities).toBe(expected.length);
    expect(authorized.skipped).toBe(variant === 'malformed-entry' ? 1 : undefined);

    const snapshot = readSnapshot(join(dir, 'agentstack-capabilities.json'))!;
    expect(snapshot.actions.map((a) => a.action).sort()).toEqual(expected);
    expect(snapshot.skipped_entries).toBe(variant === 'malformed-entry' ? 1 : 0);

    const card = String((await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).json.additional_context);
    expect(card).toContain(`- Account: signed in as ${variant === 'me-sparse' ? 'user usr_dev_0001' : 'dev@agentstack.test'}`);
    expect(card).toContain(`- Capabilities: ${expected.length} actions in the snapshot`);
    if (variant === 'malformed-entry') {
      expect(card).toMatch(/1 malformed catalog entry was left out \(first: domains\.projects\.1\.action/);
      const diagnose = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: hookEnv(dir, core.baseUrl), encoding: 'utf8' });
      const check = (JSON.parse(diagnose.stdout).checks as Array<{ id: string; status: string; summary: string }>).find((c) => c.id === 'capabilities.snapshot');
      expect(check).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/1 malformed catalog entry was left out/) });
    }
    expect(card).not.toMatch(/Action needed/);

    expect(await preMcp('projects.list')).toEqual({});
    expect(await preMcp(variant === 'unicode-actions' ? '项目.列表' : 'system.ping')).toEqual({});
    // An action the snapshot lacks may be the entry left out as malformed: the person is asked rather than denied.
    expect(await preMcp('nope.nothing')).toMatchObject({ permission: variant === 'malformed-entry' ? 'ask' : 'deny' });
  });

  it('a token granted only the read scopes is denied a write action, unless it names no granted scopes', async () => {
    const res = await fetch(`${core.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    // Without discovery, the plugin's own vocabulary is the server's.
    const advertised: string[] = res.ok ? (await res.json() as { scopes_supported: string[] }).scopes_supported : ['openid', 'offline_access', 'profile:read', 'projects:read', 'actions:read', 'data:read', 'data:write'];
    const reads = advertised.filter((s) => /read/.test(s) || s === 'openid');
    await signInWith(dir, core.baseUrl, await core.issueTokens({ scope: reads.join(' ') }));
    const answer = await preMcp('data.write');
    if (variant === 'no-caps-claim') expect(answer).toEqual({});
    else expect(answer).toMatchObject({ permission: 'deny', user_message: expect.stringMatching(/lacks the capability "(data:write|write:data)"/) });
  });
});

describe('scope presets follow the server\'s scopes_supported (variant other-scopes)', () => {
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ port: 0, interval: 1, variant: 'other-scopes' });
  });
  afterAll(async () => core?.close());

  const signIn = async (name: string, args: string[]) => {
    const dir = join(tmp.path, `scopes-${name}`);
    mkdirSync(dir);
    const device = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir, args: ['--json', '--no-browser', ...args] });
    return { dir, device };
  };
  // The scopes granted for the MCP resource (the token response's `scope`, which leaves out openid and offline_access).
  const grantedScope = (dir: string) => String(JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8')).scope).split(' ').sort();

  it('readonly asks for the server\'s read scopes, full for all of them', async () => {
    for (const [preset, expected] of [
      ['readonly', ['read:actions', 'read:data', 'read:profile', 'read:projects']],
      ['full', ['execute:actions', 'read:actions', 'read:data', 'read:profile', 'read:projects', 'write:data', 'write:projects']],
    ] as const) {
      const { dir, device } = await signIn(preset, ['--scope-preset', preset]);
      await core.approve(String((await device.waitFor('device_code')).user_code));
      expect((await device.done).code).toBe(0);
      expect(grantedScope(dir)).toEqual(expected);
    }
  });

  it('--scopes with a scope the server does not advertise stops before any device authorization, naming what it offers', async () => {
    const before = core.counters.deviceAuthorizations;
    const { device } = await signIn('outside', ['--scopes', 'data:write']);
    const done = await device.done;
    expect(done.code).toBe(1);
    expect(device.events.at(-1)).toMatchObject({ event: 'error', error: 'invalid_config', message: expect.stringMatching(/does not offer the scope "data:write"; it offers: .*write:data/) });
    expect(core.counters.deviceAuthorizations).toBe(before);
  });

  it('--scopes with advertised scopes asks for exactly those (and a refresh token: offline_access is advertised)', async () => {
    const { dir, device } = await signIn('explicit', ['--scopes', 'read:data write:data']);
    await core.approve(String((await device.waitFor('device_code')).user_code));
    expect((await device.done).code).toBe(0);
    expect(grantedScope(dir)).toEqual(['read:data', 'write:data']);
  });
});

// Metadata where only RFC 9728's root location or the 401 challenge has it, and the authorization server on another
// origin with nothing OAuth on the base URL: the built sign-in succeeds only if its discovery finds the endpoints.
describe.each([
  ['root-resource-metadata', 'other-issuer'],
  ['challenge-metadata', 'other-issuer'],
] as Array<VariantName[]>)('sign-in through discovery alone (variants %s + %s)', (...variant) => {
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ port: 0, interval: 1, variant });
  });
  afterAll(async () => core?.close());

  it('device-code.mjs signs in at the issuer the metadata names, never on the base URL\'s fixed paths', async () => {
    const dir = join(tmp.path, `discovery-${variant.join('+')}`);
    mkdirSync(dir);
    const device = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir });
    const code = await device.waitFor('device_code');
    expect(String(code.verification_uri)).toContain(core.issuer);
    await core.approve(String(code.user_code));
    const done = await device.done;
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8')).token_endpoint).toMatch(new RegExp(`^${core.issuer}/`));
    expect(core.counters.requests['POST /api/oauth2/device/authorize']).toBe(1);
  });
});
