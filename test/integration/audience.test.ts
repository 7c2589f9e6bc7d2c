/**
 * A token whose `aud` is a StringOrURI that is not an http(s) URL (RFC 7519 §4.1.3), as other authorization servers
 * issue (`api://agentstack-mcp` as Entra does, Glewlwyd's default scope string, a URN): the reference core issues
 * it through the real device flow and requires it at /mcp. Such an `aud` names no other server: `--status` says
 * signed in, and session start renews the Bearer that falls due instead of dropping it as another server's.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { decodeJwtClaims } from '../../lib/agentstack/auth/jwt.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode } from '../helpers/deviceCode.js';
import { baseChildEnv } from '../helpers/platform.js';
import { tempDir } from '../helpers/repo.js';
import { sessionStart } from '../helpers/sessionStart.js';

let core: RunningCore;
const tmp = tempDir('agentstack-audience-');
beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => { await core?.close(); tmp.cleanup(); });

function status(dir: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [DEVICE_CODE_SCRIPT, '--status', '--json'], {
    env: { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: core.baseUrl },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

const bearer = (dir: string) => bearerOf(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')));

describe.each(['api://agentstack-mcp', 'mcp:read mcp:write', 'urn:example:mcp'])('aud %s', (audience) => {
  it('sign-in is authorized, --status says signed in, and session start renews the Bearer rather than dropping it', async () => {
    const dir = join(tmp.path, audience.replace(/[^a-z]+/g, '-'));
    // The Bearer falls due at once (it expires within the renewal window), so session start must renew it.
    core.setFaults({ audience, accessTokenTtl: 30 });
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir });
    const code = await run.waitFor('device_code');
    await core.approve(String(code.user_code));
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(run.events.some((e) => e.event === 'authorized')).toBe(true);
    const issued = bearer(dir)!;
    expect(decodeJwtClaims(issued)?.aud).toBe(audience);

    const shown = JSON.parse((await status(dir)).stdout);
    expect(shown.state).not.toBe('other_server');
    expect(shown).toMatchObject({ signed_in: true, state: 'expiring' });

    const grants = core.counters.refreshGrants;
    const started = await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(started.code).toBe(0);
    expect(core.counters.refreshGrants).toBe(grants + 1);
    const renewed = bearer(dir);
    expect(renewed).toBeTruthy();
    expect(renewed).not.toBe(issued);
    expect(String(started.json.additional_context)).not.toMatch(/another server/);

    core.setFaults({ audience: null, accessTokenTtl: 3600 });
  });
});
