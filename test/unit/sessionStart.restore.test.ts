/**
 * The agentstack entry taken out of mcp.json by hand while its refresh token is kept: session start puts it back from
 * the refresh token (no new sign-in) and says so; when that fails, the card still tells the restore story, never a
 * sign-in.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith } from '../helpers/sessionStart.js';
import { bearerIn, startSession, todoOf } from '../helpers/sessionStartInProcess.js';
import { RESTORE_STEP } from '../../lib/agentstack/state/story.js';

const fx = useCoreAndCursorDirs('agentstack-ss-restore-');
afterEach(() => fx.core.setFaults({}));

async function entryRemoved(): Promise<string> {
  const dir = fx.cursorDir();
  await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
  const path = join(dir, 'mcp.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  delete config.mcpServers.agentstack;
  config.mcpServers.other = { url: 'https://mcp.example.com/mcp' };
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
  return dir;
}

describe('session start restores a removed entry', () => {
  it('from the stored refresh token: no new sign-in, the card says so, other servers stay', async () => {
    const dir = await entryRemoved();
    const devices = fx.core.counters.deviceAuthorizations;
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: { AGENTSTACK_BASE_URL: fx.core.baseUrl } });
    expect(run.card).toMatch(/- Restored the agentstack entry in \S*mcp\.json from the stored refresh token \(no new sign-in\); to disconnect, run node .*device-code\.mjs --logout\./);
    expect(run.card).toContain('- Account: signed in');
    expect(bearerIn(dir)).toBeTruthy();
    expect(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).mcpServers.other).toEqual({ url: 'https://mcp.example.com/mcp' });
    expect(fx.core.counters.deviceAuthorizations).toBe(devices);
  });

  it('a restore that fails (the token endpoint down) tells the restore story, not a sign-in', async () => {
    const dir = await entryRemoved();
    fx.core.setFaults({ endpointFaults: { token: { kind: '5xx' } } });
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: { AGENTSTACK_BASE_URL: fx.core.baseUrl } });
    expect(run.card).toContain('- Account: agentstack entry removed from mcp.json, restore due');
    expect(todoOf(run.card)).toEqual([`- ${RESTORE_STEP}`]);
    expect(run.card).not.toMatch(/Sign in (again )?with/);
  });
});
