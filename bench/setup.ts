/** Cursor dirs the bench times the hooks in, built with the plugin's own kernel against the running core. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningCore } from '../core/index.js';
import { discoverEndpoints } from '../lib/agentstack/auth/oauth.js';
import { applyBearer } from '../lib/agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../lib/agentstack/mcpJson/file.js';
import { cursorPaths } from '../lib/agentstack/server/paths.js';
import { writeRefreshFile } from '../lib/agentstack/auth/refreshStore.js';
import { writeSnapshot } from '../lib/agentstack/snapshot/store.js';
import { flattenCatalog, readCatalog } from '../lib/agentstack/snapshot/catalog.js';
import { bigSnapshot } from '../test/helpers/fixtures.js';

export function envFor(core: RunningCore, dir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };
}

/** Installs a token pair the way device-code does: refresh file first, then the Bearer. */
export async function installTokens(core: RunningCore, dir: string, ttlSeconds: number): Promise<void> {
  const previous = core.faults().accessTokenTtl;
  core.setFaults({ accessTokenTtl: ttlSeconds });
  const tokens = await core.issueTokens();
  core.setFaults({ accessTokenTtl: previous });
  const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir });
  const endpoints = await discoverEndpoints(core.baseUrl);
  writeRefreshFile(paths.refresh, {
    refresh_token: tokens.refresh_token!, scope: tokens.scope, token_type: 'Bearer', obtained_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(), token_endpoint: endpoints.tokenEndpoint,
    client_id: 'cursor-plugin', resource: core.mcpUrl,
  });
  await updateMcpConfigFile(paths.mcpJson, (cfg) => applyBearer(cfg, { token: tokens.access_token, baseUrl: core.baseUrl }));
}

const created: string[] = [];

export function newCursorDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `agentstack-bench-${name}-`));
  created.push(dir);
  return dir;
}

/** Removes every Cursor dir newCursorDir made (the bench's last step: each run made a few dozen). */
export function removeBenchDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Replaces the snapshot with `count` actions as the plugin writes it: a catalog of `count` entries (summaries,
 * categories and all) read and flattened by the plugin's own code, which keeps the action, its domain and its
 * capability. Kept fresh.
 */
export function installBigSnapshot(dir: string, count: number): void {
  const domains: Record<string, unknown[]> = {};
  for (const entry of bigSnapshot(count).actions) (domains[entry.domain!] ??= []).push(entry);
  writeSnapshot(cursorPaths({ AGENTSTACK_CURSOR_DIR: dir }).capabilities, flattenCatalog(readCatalog({ domains })));
}

/**
 * A 20-rule policy in the settings file (confirm-writes, 10 ask and 10 deny globs and capabilities, none of them
 * matching POLICY_STEPS, so every rule is tried on every step).
 */
export function installPolicy(dir: string): void {
  const ask = ['storage.*', '*.purge', 'billing.refund*', 'agents.delete', 'files:admin', '*.export', 'workflows.run_*', 'search:admin', 'notify.broadcast', '*:owner'];
  const deny = ['projects.delete', 'data.drop*', '*:admin', 'tenants.*', '*.destroy', 'auth.revoke_all', 'billing:write', 'system.shutdown', 'files.wipe', 'agents.*_all'];
  writeFileSync(cursorPaths({ AGENTSTACK_CURSOR_DIR: dir }).settings, JSON.stringify({ policy: 'confirm-writes', 'ask-actions': ask.join(','), 'deny-actions': deny.join(',') }));
}

/** Five steps whose actions need read capabilities in installBigSnapshot's snapshot: the policy lets them through. */
export const POLICY_STEPS = ['projects.list', 'auth.get_profile', 'system.ping', 'auth.op_4002', 'billing.op_4014'].map((action, i) => ({ id: String(i + 1), action }));

/** The same actions with every catalog field in the file, as plugin versions before 0.5.0 wrote it (until its next refresh). */
export function installLegacySnapshot(dir: string, count: number): void {
  writeSnapshot(cursorPaths({ AGENTSTACK_CURSOR_DIR: dir }).capabilities, bigSnapshot(count));
}

export function copyFile(from: string, to: string): void {
  writeFileSync(to, readFileSync(from), { mode: 0o600 });
}

/** An action needing a write capability in installBigSnapshot's snapshot (`projects:write`): the policy asks about it. */
export const ASK_ACTION = 'system.op_4003';
