import { statSync } from 'node:fs';
import { join, posix, sep, win32 } from 'node:path';
import { builtin } from '../../platform/builtin.js';
import { PluginError } from '../../platform/errors.js';
import { lockPathFor } from '../../platform/fs/lockPath.js';

const MCP_JSON = 'mcp.json';
const REFRESH = 'agentstack-refresh';
const SETTINGS = 'agentstack-settings.json';

/** Files the plugin reads and writes inside the Cursor config dir. */
export const CURSOR_FILES = {
  mcpJson: MCP_JSON,
  mcpJsonLock: lockPathFor(MCP_JSON),
  refresh: REFRESH,
  refreshLock: lockPathFor(REFRESH),
  capabilities: 'agentstack-capabilities.json',
  capabilitiesFailure: 'agentstack-capabilities-failed.json',
  deviceLock: 'agentstack-device.lock',
  project: 'agentstack-project',
  deviceLog: 'agentstack-device.log',
  debugLog: 'agentstack-debug.log',
  identity: 'agentstack-identity.json',
  settings: SETTINGS,
  settingsLock: lockPathFor(SETTINGS),
  signedOut: 'agentstack-signed-out',
  /** When an access token that came without a refresh token ends (no secret: its fingerprint and expiry). */
  token: 'agentstack-token.json',
  /** When each hook last ran (no secret): diagnose-local tells from it whether Cursor runs the plugin's hooks. */
  hookRuns: 'agentstack-hook-runs.json',
  /** When the pre-MCP hook last told the person about an unusable credential, per state (no secret). */
  credentialTold: 'agentstack-credential-told.json',
  /** What the pre-MCP hook's fast path needs, compiled from the files above when they change (no secret). */
  gate: 'agentstack-gate.json',
  /** Every action of the snapshot and the suggestions' index of them, beside the gate (no secret). */
  gateNames: 'agentstack-gate-names.txt',
  /** When the pre-MCP hook last started a background renewal of the token (empty; its time is what counts). */
  renewStarted: 'agentstack-renew.started',
  /** The card of a session start that had nothing to do, and what it was made from (no secret). */
  sessionGate: 'agentstack-session-gate.json',
  /** What the agent ran through AgentStack, one JSON record per line (no secret, no parameter, no result data). */
  journal: 'agentstack-journal.jsonl',
  /** Windows only: the registry's ProgramData folder and the managed file's last trust verdict (no secret). */
  windowsManaged: 'agentstack-windows-managed.json',
} as const;

export type CursorPaths = { dir: string } & { [K in keyof typeof CURSOR_FILES]: string };

/**
 * The home folder: what os.homedir() answers first (HOME on POSIX, USERPROFILE on Windows), read from `env` without
 * loading node:os (~0.5 ms of every AgentStack call's hook run); os.homedir() itself only when it is not set.
 */
function homeFolder(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const set = platform === 'win32' ? env.USERPROFILE : env.HOME;
  return set || builtin<typeof import('node:os')>('node:os').homedir();
}

/**
 * `AGENTSTACK_CURSOR_DIR` as an absolute folder: trimmed, a leading `~`, `$HOME` or `%USERPROFILE%` expanded (a
 * launcher or GUI environment passes them unexpanded). A relative path is refused: hooks run in the workspace, so it
 * would put mcp.json, with its Bearer, into the person's project.
 */
export function resolveCursorDirOverride(value: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const path = platform === 'win32' ? win32 : posix;
  const home = homeFolder(env, platform);
  const trimmed = value.trim();
  // The pattern only where it can match: compiling it costs each hook run ~0.1 ms, and the folder is mostly given whole.
  const expanded = '~$%'.includes(trimmed.charAt(0) || '-') ? trimmed.replace(/^(~|\$HOME\b|\$\{HOME\}|%USERPROFILE%)(?=$|[\\/])/i, home) : trimmed;
  if (!path.isAbsolute(expanded)) {
    throw new PluginError('invalid_config', `AGENTSTACK_CURSOR_DIR must be an absolute path (it is ${JSON.stringify(trimmed.slice(0, 80))}); set it to a full path such as ${path.join(home, '.cursor')}, or unset it.`);
  }
  return path.resolve(expanded);
}

/** `~/.cursor` (Windows: `%USERPROFILE%\.cursor`), or `AGENTSTACK_CURSOR_DIR`. */
export function cursorDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env.AGENTSTACK_CURSOR_DIR;
  if (override && override.trim()) return resolveCursorDirOverride(override, env, platform);
  return (platform === 'win32' ? win32 : posix).join(homeFolder(env, platform), '.cursor');
}

/**
 * Stops a script (never a hook) with one clear line when the Cursor folder exists but is not a folder, before any
 * read or write inside it fails with ENOTDIR or EEXIST. A missing folder is fine: writers create it.
 */
export function assertCursorDirIsFolder(env: NodeJS.ProcessEnv = process.env): void {
  const dir = cursorDir(env);
  let isFolder = true;
  try { isFolder = statSync(dir).isDirectory(); } catch { return; }
  if (isFolder) return;
  const named = env.AGENTSTACK_CURSOR_DIR?.trim() ? `AGENTSTACK_CURSOR_DIR (${dir})` : `The Cursor folder ${dir}`;
  throw new PluginError('io', `${named} is a file, not a folder; point AGENTSTACK_CURSOR_DIR at a folder, or unset it.`, { details: { path: dir } });
}

export function cursorPaths(env: NodeJS.ProcessEnv = process.env): CursorPaths {
  const dir = cursorDir(env);
  // `dir` is already normalized (resolved or joined) and each name is one plain segment: what join() would give,
  // without its normalizing pass over every path (a hook builds these on every AgentStack call).
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  const out = { dir } as Record<string, string>;
  for (const key in CURSOR_FILES) out[key] = `${prefix}${CURSOR_FILES[key as keyof typeof CURSOR_FILES]}`;
  return out as CursorPaths;
}

/** The hook scripts' compile cache (code only, no data): one folder per plugin version under it, nothing else. */
export function chunkCacheRoot(env: NodeJS.ProcessEnv): string {
  return join(cursorDir(env), 'agentstack-compile-cache');
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
