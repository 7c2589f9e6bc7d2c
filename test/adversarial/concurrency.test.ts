/**
 * Concurrency. Fault: 20 processes start at once against one ~/.cursor: session-start hooks (normalize + refresh of an
 * expiring token), diagnose --fix (normalize), and device-code's final write (the kernel's applyBearer through the
 * locked updateMcpConfigFile, each adding its own marker server so its write is observable). Outcome: no lost update
 * (every marker and every other server present), valid JSON, a lean entry, a Bearer the server accepts, and one
 * refresh per expiry window with no refresh-token replay.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { refresh as coreRefresh } from '../../core/testing.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { serializeMcpConfig } from '../../lib/agentstack/mcpJson/file.js';
import { fileMode, writeFileAtomic } from '../../lib/platform/fs/secureFile.js';
import { bundleForTest } from '../helpers/bundle.js';
import { crowdedMcpJson } from '../helpers/fixtures.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { SESSION_START_SCRIPT, signInWith } from '../helpers/sessionStart.js';
import { PRIVATE_MODE, baseChildEnv } from '../helpers/platform.js';

const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
let finalWrite: string;
beforeAll(async () => {
  tmp = tempDir('agentstack-concurrency-');
  [core, finalWrite] = await Promise.all([
    startCore({ port: 0, interval: 1 }),
    bundleForTest('test/adversarial/fixtures/deviceFinalWrite.ts', join(tmp.path, 'deviceFinalWrite.mjs')),
  ]);
});
afterAll(async () => {
  await core?.close();
  tmp?.cleanup();
});

interface Done { kind: string; code: number | null; stdout: string; stderr: string }
function start(kind: string, args: string[], dir: string, stdin = ''): Promise<Done> {
  const env = { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ kind, code, stdout, stderr })));
}

/** A signed-in Cursor dir with 40 other servers and a fat agentstack entry whose token expires within 120 s. */
async function prepare(name: string): Promise<{ dir: string; others: string; expiring: string }> {
  const dir = join(tmp.path, name);
  // The refreshed token lives an hour: a process the loaded machine starts after the refresh finds it fresh, as it
  // would in use (a refreshed token that is itself inside the refresh window is rightly refreshed again).
  const tokens = await core.issueTokens({ accessTokenTtl: 30, refreshedAccessTokenTtl: 3600 });
  await signInWith(dir, core.baseUrl, tokens);
  const path = join(dir, 'mcp.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  const crowded = crowdedMcpJson(40, { ...config.mcpServers.agentstack, tools: { 'agentstack.execute': { enabled: true } }, notes: 'fat' });
  writeFileAtomic(path, serializeMcpConfig(crowded));
  return { dir, others: JSON.stringify(otherServers(crowded)), expiring: tokens.access_token };
}

function otherServers(config: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(config.mcpServers as Record<string, unknown>).filter(([k]) => k.startsWith('server-'));
}

async function accepted(token: string | null): Promise<boolean> {
  const res = await fetch(`${core.baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status === 200;
}

function expectHookAnswers(runs: Done[]): void {
  for (const r of runs.filter((x) => x.kind === 'session-start')) {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    JSON.parse(r.stdout);
  }
  for (const r of runs.filter((x) => x.kind === 'diagnose')) expect([0, 1], r.stderr).toContain(r.code);
  for (const r of runs.filter((x) => x.kind === 'final-write')) expect(r.code, r.stderr).toBe(0);
}

const counters = () => ({ grants: core.counters.refreshGrants, replays: core.counters.refreshReplays, revoked: core.counters.grantsRevoked });

describe('concurrency: 20 processes on one mcp.json', () => {
  it('8 session-start + 6 diagnose --fix + 6 device-code final writes: no lost update, lean entry, valid Bearer, at most one refresh', async () => {
    const { dir, others, expiring } = await prepare('mixed');
    const fresh = await Promise.all(Array.from({ length: 6 }, () => core.issueTokens()));
    const before = counters();
    const runs = await Promise.all([
      ...Array.from({ length: 8 }, () => start('session-start', [SESSION_START_SCRIPT, '--from-hook'], dir, '{"hook_event_name":"sessionStart"}')),
      ...Array.from({ length: 6 }, () => start('diagnose', [DIAGNOSE, '--fix', '--json'], dir)),
      ...fresh.map((t, i) => start('final-write', [finalWrite, join(dir, 'mcp.json'), t.access_token, core.baseUrl, `marker-${i}`], dir)),
    ]);
    expectHookAnswers(runs);
    const config = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    expect(JSON.stringify(otherServers(config))).toBe(others);
    for (let i = 0; i < 6; i++) expect(config.mcpServers[`marker-${i}`], `marker-${i} lost`).toEqual({ url: `https://marker-${i}.example.com/mcp` });
    expect(config.mcpServers.agentstack.tools).toBeUndefined();
    expect(config.mcpServers.agentstack.notes).toBeUndefined();
    expect(config.someOtherTopLevelKey).toEqual({ keep: true });
    expect(fileMode(join(dir, 'mcp.json'))).toBe(PRIVATE_MODE);
    const bearer = bearerOf(config);
    expect(bearer).not.toBe(expiring);
    expect(await accepted(bearer)).toBe(true);
    const after = counters();
    expect(after.grants - before.grants).toBeLessThanOrEqual(1);
    expect(after.replays - before.replays).toBe(0);
    expect(after.revoked - before.revoked).toBe(0);
  }, 180_000);

  it('12 session-start + 8 diagnose --fix on one expiring token: exactly one refresh, no replay, the rotated refresh token works', async () => {
    const { dir, others, expiring } = await prepare('window');
    const before = counters();
    const runs = await Promise.all([
      ...Array.from({ length: 12 }, () => start('session-start', [SESSION_START_SCRIPT, '--from-hook'], dir, '{"hook_event_name":"sessionStart"}')),
      ...Array.from({ length: 8 }, () => start('diagnose', [DIAGNOSE, '--fix', '--json'], dir)),
    ]);
    expectHookAnswers(runs);
    const after = counters();
    expect(after.grants - before.grants).toBe(1);
    expect(after.replays - before.replays).toBe(0);
    expect(after.revoked - before.revoked).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    expect(JSON.stringify(otherServers(config))).toBe(others);
    expect(config.mcpServers.agentstack.tools).toBeUndefined();
    const bearer = bearerOf(config);
    expect(bearer).not.toBe(expiring);
    expect(await accepted(bearer)).toBe(true);
    const stored = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
    expect((await coreRefresh(core.baseUrl, stored.refresh_token)).status).toBe(200);
  }, 180_000);
});
