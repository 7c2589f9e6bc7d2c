/**
 * An opaque (non-JWT) Bearer and a hand-edited `url`. Fault: the agentstack entry's url is changed to another
 * server while it holds an opaque token we issued for the reference core (no `aud` to check). Outcome: the Bearer
 * is sent nowhere (no GET /mcp/actions, no /api/auth/me to the other server), the card shows no expiry of the
 * other server's grant, and mcp.json no longer carries the token to the new url. A Bearer that is not the one we
 * recorded (pasted by hand for the new server) is left alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { bearerOf, tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { tempDir } from '../helpers/repo.js';
import { SESSION_INPUT, SESSION_START_SCRIPT, runHook } from '../helpers/sessionStart.js';

const OPAQUE = 'opaque-access-token-for-the-core-0123456789';
let core: RunningCore;
let other: Server;
let otherUrl: string;
const seen: Array<{ path: string; authorization: string | undefined }> = [];
let dir: ReturnType<typeof tempDir>;

beforeAll(async () => {
  core = await startCore({ port: 0 });
  other = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await core?.close();
  await new Promise((resolve) => other?.close(resolve));
});
beforeEach(() => {
  dir = tempDir('agentstack-opaque-');
  seen.length = 0;
});
afterEach(() => dir.cleanup());

/** Signed in to the core with an opaque token (as finishSignIn records it), then the url edited by hand. */
function prepare(bearer: string, record: { fingerprint?: string }): void {
  writeRefreshFile(join(dir.path, 'agentstack-refresh'), {
    refresh_token: 'refresh-token-for-the-core-0123456789',
    scope: 'openid offline_access actions:read',
    token_type: 'Bearer',
    obtained_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3 * 3600_000).toISOString(),
    token_endpoint: `${core.baseUrl}/api/oauth2/token`,
    client_id: 'cursor-plugin',
    resource: `${core.baseUrl}/mcp`,
    ...(record.fingerprint ? { access_token_sha256: record.fingerprint } : {}),
  });
  const entry = { type: 'http', url: `${otherUrl}/mcp`, headers: { Authorization: `Bearer ${bearer}` } };
  writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: entry } }, null, 2));
}

async function sessionStartWithoutEnvServer() {
  const env = { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };
  const run = await runHook(SESSION_START_SCRIPT, ['--from-hook'], env, JSON.stringify(SESSION_INPUT));
  expect(run.code).toBe(0);
  return String(run.json.additional_context ?? '');
}

describe('an opaque Bearer we issued, and a hand-edited url', () => {
  it.each([
    ['a record written before fingerprints', {}],
    ['a record with the token fingerprint', { fingerprint: tokenFingerprint(OPAQUE) }],
  ])('%s: the Bearer is sent nowhere and leaves mcp.json', async (_name, record) => {
    prepare(OPAQUE, record);
    const card = await sessionStartWithoutEnvServer();
    expect(seen.filter((r) => r.authorization?.includes(OPAQUE))).toEqual([]);
    expect(card).not.toMatch(/valid until/);
    expect(bearerOf(JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8')))).toBeNull();
  }, 20_000);

  it('a Bearer pasted by hand for the new server (not the recorded one) is kept', async () => {
    prepare('pasted-token-for-the-other-server-987654', { fingerprint: tokenFingerprint(OPAQUE) });
    await sessionStartWithoutEnvServer();
    expect(bearerOf(JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8')))).toBe('pasted-token-for-the-other-server-987654');
  }, 20_000);
});
