/**
 * diagnose-local --fix: the safe repairs only. mcp.json is normalized by the mcp.json manager (its lock, its atomic
 * 0600 write); loose modes of the plugin's secret files are tightened; a stale device lock is removed. Nothing else.
 */
import { breakStaleLock, withLock } from '../../platform/fs/fileLock.js';
import { normalizeMcpConfig } from '../../agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { issuedFor } from '../../agentstack/auth/refreshStore.js';
import { tightenMode } from '../../platform/fs/tightenMode.js';
import { tilde } from '../../platform/text/tilde.js';
import { octal } from './gatesConfig.js';
import { isLiveLock } from './gatesState.js';
import type { LocalState } from './state.js';


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
  for (const path of [paths.mcpJson, paths.refresh, paths.capabilities, paths.project, paths.identity, paths.settings]) {
    await attempt(`chmod 600 ${tilde(path)}`, () => {
      const was = tightenMode(path, { platform: options.platform });
      if (was !== null) changes.push(`chmod 600 ${tilde(path)} (was ${octal(was)})`);
    });
  }
  if (state.lock.exists && state.lock.text !== null && !isLiveLock(state.lock, state.now)) {
    await attempt(`remove the stale device lock ${tilde(paths.deviceLock)}`, () => {
      breakStaleLock(paths.deviceLock, state.lock.text!);
      changes.push(`removed the stale device lock ${tilde(paths.deviceLock)}`);
    });
  }
  return changes;
}
