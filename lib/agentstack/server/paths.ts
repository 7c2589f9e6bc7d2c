import { homedir } from 'node:os';
import { join } from 'node:path';
import { lockPathFor } from '../../platform/fs/lockPath.js';

const MCP_JSON = 'mcp.json';
const REFRESH = 'agentstack-refresh';

/** Files the plugin reads and writes inside the Cursor config dir. */
export const CURSOR_FILES = {
  mcpJson: MCP_JSON,
  mcpJsonLock: lockPathFor(MCP_JSON),
  refresh: REFRESH,
  refreshLock: lockPathFor(REFRESH),
  capabilities: 'agentstack-capabilities.json',
  deviceLock: 'agentstack-device.lock',
  project: 'agentstack-project',
  deviceLog: 'agentstack-device.log',
  identity: 'agentstack-identity.json',
} as const;

export type CursorPaths = { dir: string } & { [K in keyof typeof CURSOR_FILES]: string };

/** `~/.cursor` (Windows: `%USERPROFILE%\.cursor`), or `AGENTSTACK_CURSOR_DIR`. */
export function cursorDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.AGENTSTACK_CURSOR_DIR;
  if (override && override.trim()) return override;
  const home = process.platform === 'win32' && env.USERPROFILE ? env.USERPROFILE : homedir();
  return join(home, '.cursor');
}

export function cursorPaths(env: NodeJS.ProcessEnv = process.env): CursorPaths {
  const dir = cursorDir(env);
  const out = { dir } as CursorPaths;
  for (const [key, name] of Object.entries(CURSOR_FILES)) {
    (out as Record<string, string>)[key] = join(dir, name);
  }
  return out;
}

/** The hook scripts' compile cache (code only, no data), one folder per plugin version. */
export function chunkCacheDir(env: NodeJS.ProcessEnv, pluginVersion: string): string {
  return join(cursorDir(env), 'agentstack-compile-cache', pluginVersion);
}

/** Where Cursor keeps installed copies of plugins (`cache/<marketplace>/<plugin>/<commit>/`, `local/<name>/`, `marketplaces/`). */
export function cursorPluginDirs(env: NodeJS.ProcessEnv = process.env) {
  const plugins = join(cursorDir(env), 'plugins');
  return {
    local: join(plugins, 'local'),
    cache: join(plugins, 'cache'),
    marketplaces: join(plugins, 'marketplaces'),
  };
}
