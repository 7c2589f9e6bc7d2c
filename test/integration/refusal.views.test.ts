/**
 * A token of unknown end is checked by the server: the first 401 `invalid_token` any online check meets
 * (`device-code --status --online`, `diagnose-local --online`, the probe of verify-mcp-surface-e2e) is recorded the
 * way session start records it, so every later view says refused, never "signed in"; the pre-MCP hook then renews
 * it in the background. A 403 `insufficient_scope` from the catalog fetch is not a refusal: the token stays, and
 * the card names the missing scope.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, sessionStart, signInWith } from '../helpers/sessionStart.js';

const fixture = useCoreAndCursorDirs('agentstack-refusal-');
const OPAQUE = 'opaque-token-the-server-does-not-know-0123456789';
const FAILURE = 'agentstack-capabilities-failed.json';

/** Runs a script as a person does (async: the core answers from this process). */
function script(path: string, args: string[], dir: string, extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, path), ...args], { env: { ...hookEnv(dir, fixture.core.baseUrl), ...extra } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
const statusJson = async (dir: string) => JSON.parse((await script('hooks/scripts/device-code.mjs', ['--status', '--json'], dir)).stdout) as Record<string, unknown>;
const bearer = (dir: string) => /Bearer ([^"]+)/.exec(readFileSync(join(dir, 'mcp.json'), 'utf8'))?.[1] ?? null;
const record = (dir: string) => JSON.parse(readFileSync(join(dir, FAILURE), 'utf8')) as Record<string, unknown>;

/** Signed in with a refresh token, but the Bearer is opaque and nothing on disk knows its end. */
async function unknownEndDir(): Promise<string> {
  const dir = fixture.cursorDir();
  await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
  const stored = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
  writeFileSync(join(dir, 'agentstack-refresh'), JSON.stringify({ ...stored, expires_at: null, access_token_sha256: null }), { mode: 0o600 });
  const path = join(dir, 'mcp.json');
  writeFileSync(path, readFileSync(path, 'utf8').replace(/Bearer [^"]+/, `Bearer ${OPAQUE}`), { mode: 0o600 });
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

const call = () => JSON.stringify({
  hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${fixture.core.baseUrl}/mcp`,
  tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.list', params: {} }] }),
});

describe('a refusal met by an online check is every view\'s', { timeout: 60_000 }, () => {
  it('diagnose-local --online records it: that report and every later view say refused; the pre-MCP hook renews it in the background', async () => {
    const dir = await unknownEndDir();
    // Offline nothing can tell: the token has no known end.
    expect(await statusJson(dir)).toMatchObject({ state: 'signed_in' });
    const diagnosed = await script('scripts/diagnose-local.mjs', ['--online', '--json'], dir);
    const report = JSON.parse(diagnosed.stdout);
    expect(report.account.state).toBe('refused_renewable');
    expect(diagnosed.stdout + diagnosed.stderr).not.toContain(OPAQUE);
    expect(record(dir)).toMatchObject({ server_url: `${fixture.core.baseUrl}/mcp`, unauthorized: true, token_sha256: expect.any(String) });
    expect(JSON.stringify(record(dir))).not.toContain(OPAQUE);
    const after = await statusJson(dir);
    expect(after).toMatchObject({ state: 'refused_renewable', signed_in: false });

    // The hook reads the refusal from a file it already reads, and starts the single-flight renewal.
    const grants = fixture.core.counters.refreshGrants;
    const run = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, fixture.core.baseUrl), call());
    expect(run.code).toBe(0);
    expect(await until(() => bearer(dir) !== OPAQUE, 15_000)).toBe(true);
    expect(existsSync(join(dir, 'agentstack-renew.started'))).toBe(true);
    expect(fixture.core.counters.refreshGrants - grants).toBe(1);
    expect(await statusJson(dir)).toMatchObject({ state: 'signed_in', signed_in: true });
  });

  it('the pre-MCP hook renews a token whose refusal the catalog fetch recorded, though its own end is an hour away', async () => {
    const dir = fixture.cursorDir();
    await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
    const issued = bearer(dir);
    fixture.core.setFaults({ actionsChallenge: { status: 401, challenge: 'Bearer error="invalid_token"' } });
    try {
      await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    } finally {
      fixture.core.setFaults({ actionsChallenge: null });
    }
    expect(record(dir)).toMatchObject({ unauthorized: true });
    expect(await statusJson(dir)).toMatchObject({ state: 'refused_renewable' });
    const grants = fixture.core.counters.refreshGrants;
    const run = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, fixture.core.baseUrl), call());
    expect(run.code).toBe(0);
    expect(await until(() => bearer(dir) !== issued, 15_000)).toBe(true);
    expect(fixture.core.counters.refreshGrants - grants).toBe(1);
    expect(await statusJson(dir)).toMatchObject({ state: 'signed_in' });
  });

  it('the probe of verify-mcp-surface-e2e records it for mcp.json\'s Bearer, never for one from --token-env', async () => {
    const dir = await unknownEndDir();
    const other = fixture.cursorDir();
    await signInWith(other, fixture.core.baseUrl, await fixture.core.issueTokens());
    const fromEnv = await script('scripts/verify-mcp-surface-e2e.mjs', ['--only', 'mcp', '--json', '--token-env', 'SOME_TOKEN'], other, { SOME_TOKEN: OPAQUE });
    expect(fromEnv.code).toBe(1);
    expect(existsSync(join(other, FAILURE))).toBe(false);

    const verified = await script('scripts/verify-mcp-surface-e2e.mjs', ['--only', 'mcp', '--json'], dir);
    expect(verified.code).toBe(1);
    expect(verified.stdout + verified.stderr).not.toContain(OPAQUE);
    const exchanges = JSON.parse(verified.stdout).exchanges as Array<{ status?: number; bearer_error?: string }>;
    expect(exchanges.some((x) => x.status === 401 && x.bearer_error === 'invalid_token')).toBe(true);
    expect(record(dir)).toMatchObject({ unauthorized: true, message: expect.stringContaining('401 invalid_token') });
    expect(await statusJson(dir)).toMatchObject({ state: 'refused_renewable', signed_in: false });
  });

  it('device-code --status --online records it: the next offline --status says refused too', async () => {
    const dir = await unknownEndDir();
    const online = await script('hooks/scripts/device-code.mjs', ['--status', '--online', '--json'], dir);
    expect(online.code).toBe(1);
    expect(JSON.parse(online.stdout)).toMatchObject({ state: 'refused_renewable', online: { accepted: false } });
    expect(record(dir)).toMatchObject({ unauthorized: true });
    const offline = await script('hooks/scripts/device-code.mjs', ['--status'], dir);
    expect(offline.code).toBe(1);
    expect(offline.stdout).not.toMatch(/signed in\n/);
  });
});

describe('session start', { timeout: 60_000 }, () => {
  it('a token of unknown end the ping finds refused, and that could not be renewed (token endpoint down), stays refused in every view', async () => {
    const dir = await unknownEndDir();
    fixture.core.setFaults({ endpointFaults: { token: { kind: '5xx' } } });
    try {
      const run = await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
      expect(String(run.json.additional_context)).not.toContain('signed in as');
    } finally {
      fixture.core.setFaults({ endpointFaults: {} });
    }
    expect(bearer(dir)).toBe(OPAQUE);
    expect(record(dir)).toMatchObject({ unauthorized: true, message: expect.stringContaining('invalid_token') });
    expect(await statusJson(dir)).toMatchObject({ state: 'refused_renewable', signed_in: false });
  });

  it('a refusal of the token renewed since holds off no catalog fetch: the renewed token fetches the catalog at once', async () => {
    const dir = fixture.cursorDir();
    await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
    fixture.core.setFaults({ actionsChallenge: { status: 401, challenge: 'Bearer error="invalid_token"' } });
    try {
      await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    } finally {
      fixture.core.setFaults({ actionsChallenge: null });
    }
    expect(record(dir)).toMatchObject({ unauthorized: true });
    const next = String((await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).json.additional_context);
    expect(next).toContain('Refreshed the access token');
    expect(next).toMatch(/- Capabilities: \d+ actions in the snapshot$/m);
    expect(existsSync(join(dir, FAILURE))).toBe(false);
  });
});

describe('what the catalog fetch\'s 401 and 403 mean', { timeout: 60_000 }, () => {
  it('403 insufficient_scope: the token is not refused, nothing is renewed, and the card names the missing scope', async () => {
    const dir = fixture.cursorDir();
    await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
    const grants = fixture.core.counters.refreshGrants;
    fixture.core.setFaults({ actionsChallenge: { status: 403, challenge: 'Bearer error="insufficient_scope", scope="actions:read", error_description="needs actions:read"' } });
    try {
      const run = await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
      const card = String(run.json.additional_context);
      expect(card).toContain('signed in as dev@agentstack.test');
      expect(card).toMatch(/HTTP 403 insufficient_scope\): the token lacks the scope actions:read/);
      expect(record(dir)).toMatchObject({ unauthorized: false });
      expect(record(dir).token_sha256).toBeUndefined();
      expect(await statusJson(dir)).toMatchObject({ state: 'signed_in' });
      await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, fixture.core.baseUrl), call());
      await new Promise((r) => setTimeout(r, 1_000));
      expect(fixture.core.counters.refreshGrants).toBe(grants);
    } finally {
      fixture.core.setFaults({ actionsChallenge: null });
    }
  });

  it('401 with no error code refuses the token, as invalid_token does', async () => {
    const dir = fixture.cursorDir();
    await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
    fixture.core.setFaults({ actionsChallenge: { status: 401, challenge: 'Bearer realm="agentstack"' } });
    try {
      await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    } finally {
      fixture.core.setFaults({ actionsChallenge: null });
    }
    expect(record(dir)).toMatchObject({ unauthorized: true, token_sha256: expect.any(String) });
  });
});
