/**
 * The refresh token is stored before the Bearer is written: when writing mcp.json fails after approval, the grant
 * is not lost (the next session can still refresh), and a Bearer never lands without its refresh token.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { finishSignIn } from '../../lib/agentstack/signIn/finish.js';
import { readRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { markSignedOut } from '../../lib/agentstack/auth/signedOut.js';
import { tempDir } from '../helpers/repo.js';

const BASE = 'http://127.0.0.1:9';
const endpoints = { issuer: BASE, deviceAuthorizationEndpoint: `${BASE}/d`, tokenEndpoint: `${BASE}/t`, resource: `${BASE}/mcp`, source: 'builtin' as const };

describe('finishing a sign-in', () => {
  const tmp = tempDir('agentstack-finish-');
  afterAll(() => tmp.cleanup());

  it('has stored the refresh token when writing mcp.json fails', async () => {
    const dir = join(tmp.path, 'cursor');
    mkdirSync(join(dir, 'mcp.json'), { recursive: true }); // a folder where mcp.json should be: the Bearer write fails
    const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir, HOME: dir });
    const tokens = { access_token: 'access-token-0123456789', token_type: 'Bearer', refresh_token: 'refresh-token-0123456789', expires_in: 3600 };
    await expect(finishSignIn({ tokens, baseUrl: BASE, endpoints, client: { clientId: 'cursor-plugin' }, paths, projectId: null, bestEffortTimeoutMs: 200 })).rejects.toThrow();
    expect(readRefreshFile(paths.refresh)).toMatchObject({ refresh_token: 'refresh-token-0123456789', token_endpoint: `${BASE}/t` });
    expect(readFileSync(paths.refresh, 'utf8')).not.toContain('access-token-0123456789');
  });

  it('writes nothing when the person signed out after the approval (a sign-out that came while it finished)', async () => {
    const dir = join(tmp.path, 'signed-out');
    mkdirSync(dir, { recursive: true });
    const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir, HOME: dir });
    writeFileSync(paths.mcpJson, '{"mcpServers": {}}\n');
    const approvedAt = Date.parse('2030-01-01T00:00:00Z');
    markSignedOut(paths.signedOut, { serverUrl: `${BASE}/mcp`, now: new Date(approvedAt + 1_000) });
    const tokens = { access_token: 'access-token-0123456789', token_type: 'Bearer', refresh_token: 'refresh-token-0123456789', expires_in: 3600 };
    const finish = finishSignIn({ tokens, baseUrl: BASE, endpoints, client: { clientId: 'cursor-plugin' }, paths, projectId: null, bestEffortTimeoutMs: 200, approvedAt });
    await expect(finish).rejects.toMatchObject({ code: 'aborted', message: expect.stringMatching(/signed out while this sign-in was finishing/) });
    expect(existsSync(paths.refresh)).toBe(false);
    expect(readFileSync(paths.mcpJson, 'utf8')).toBe('{"mcpServers": {}}\n');
    expect(existsSync(paths.signedOut)).toBe(true);
  });
});
