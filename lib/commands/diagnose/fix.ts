/**
 * diagnose-local --fix: the safe repairs only. mcp.json is normalized by the mcp.json manager (its lock, its atomic
 * 0600 write); loose modes of the plugin's secret files are tightened; a stale device lock is removed. Nothing else.
 */
import { chmodSync, lstatSync } from 'node:fs';
import { breakStaleLock, withLock } from '../../platform/fs/fileLock.js';
import { normalizeMcpConfig } from '../../agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { issuedFor } from '../../agentstack/auth/refreshStore.js';
import { SECRET_FILE_MODE } from '../../platform/fs/secureFile.js';
import { octal, tilde } from './gatesConfig.js';
import { isLiveLock } from './gatesState.js';
import type { LocalState } from './state.js';

function tightenMode(path: string): string | null {
  let stat;
  try { stat = lstatSync(path); } catch { return null; }
  if (!stat.isFile() || (stat.mode & 0o077) === 0) return null;
  chmodSync(path, SECRET_FILE_MODE);
  return `chmod 600 ${tilde(path)} (was ${octal(stat.mode & 0o777)})`;
}

export interface FixOptions {
  envBaseUrl?: string | null;
  platform?: NodeJS.Platform;
}

/** Applies the repairs the state calls for and returns one line per change made, or per repair that failed. */
export async function applySafeFixes(state: LocalState, options: FixOptions = {}): Promise<string[]> {
  const changes: string[] = [];
  const { paths } = state;
  // Each repair stands alone: one that fails (a read-only folder, say) is reported and the others still run.
  const attempt = async (what: string, repair: () => Promise<void> | void) => {
    try {
      await repair();
    } catch (error) {
      changes.push(`could not ${what}: ${(error as Error).message}`);
    }
  };
  if (state.mcp.config && state.mcp.notLean) {
    await attempt(`normalize ${tilde(paths.mcpJson)}`, async () => {
      // Normalizing may drop a credential: it holds the lock every writer of the credential holds (see tokenRefresh.ts).
      const result = await withLock(paths.refreshLock, () => updateMcpConfigFile(paths.mcpJson, (config) => normalizeMcpConfig(config, { envBaseUrl: options.envBaseUrl ?? null, issued: issuedFor(state.refresh.record) })), { timeoutMs: 10_000, staleMs: 20_000 });
      if (result.changed) changes.push(`normalized the "agentstack" entry of ${tilde(paths.mcpJson)} (other servers untouched)`);
    });
  }
  if ((options.platform ?? process.platform) !== 'win32') {
    for (const path of [paths.mcpJson, paths.refresh, paths.capabilities, paths.project, paths.identity, paths.settings]) {
      await attempt(`chmod 600 ${tilde(path)}`, () => {
        const changed = tightenMode(path);
        if (changed) changes.push(changed);
      });
    }
  }
  if (state.lock.exists && state.lock.text !== null && !isLiveLock(state.lock, state.now)) {
    await attempt(`remove the stale device lock ${tilde(paths.deviceLock)}`, () => {
      breakStaleLock(paths.deviceLock, state.lock.text!);
      changes.push(`removed the stale device lock ${tilde(paths.deviceLock)}`);
    });
  }
  return changes;
}
