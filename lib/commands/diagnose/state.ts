/**
 * The thin reader of diagnose-local: gathers this machine's AgentStack state into plain data (no judgement here).
 * Secrets are read to judge them (expiry, placeholder) and are never copied anywhere but `token.bearer`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkShippedMcpJson } from '../audit/pluginRules.js';
import { isLockHolderAlive, readLockFile } from '../../platform/fs/fileLock.js';
import { signInOrigins } from '../../agentstack/signIn/lock.js';
import { jwtExpiryMs } from '../../agentstack/auth/jwt.js';
import { chooseBaseUrl, normalizeMcpConfig } from '../../agentstack/mcpJson/entry.js';
import { bearerOf, type McpConfig } from '../../agentstack/mcpJson/credential.js';
import { readMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { cursorPaths, type CursorPaths } from '../../agentstack/server/paths.js';
import { issuedFor, readRefreshFile, recordOf, refreshBelongsTo, type RefreshRecord } from '../../agentstack/auth/refreshStore.js';
import { activeCopy, inspectCopies, findInstalls, readManifest, type CopyKind, type CopyReport } from '../../agentstack/plugin/runtimeCopies.js';
import { CapabilitySnapshotSchema, DeviceLockSchema, type CapabilitySnapshot, type DeviceLock, type SnapshotFailure } from '../../schemas/state.js';
import { readSnapshotFailure } from '../../agentstack/snapshot/store.js';
import { fileMode, readTextIfExists } from '../../platform/fs/secureFile.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { isObject } from '../../platform/text/isObject.js';
import { settingsTable, type SettingRow } from '../../agentstack/settings/effective.js';
import type { SettingsRead } from '../../agentstack/settings/file.js';
import { findOnPath } from '../../platform/findExecutable.js';
import { readHookRuns, type HookRuns } from '../../agentstack/plugin/hookRuns.js';
import { STATE_FILE_MAX_BYTES } from '../../agentstack/server/fileLimits.js';

export interface PluginState {
  /** The install Cursor most likely loads, or null when none is found. */
  install: { kind: CopyKind; dir: string } | null;
  installs: number;
  manifestPointer: unknown;
  /** Problems of the install's own mcp.json (URL-only rule); null when it could not be read. */
  shippedProblems: string[] | null;
}

export interface McpState {
  path: string;
  exists: boolean;
  /** The reader's message when the file is not valid JSON or not an object. */
  error: string | null;
  config: McpConfig | null;
  mode: number | null;
  /** The agentstack entry as found (headers included; judged, never printed). */
  entry: Record<string, unknown> | null;
  /** True when the manager's normalization would change the entry. */
  notLean: boolean;
}

export interface LocalState {
  now: number;
  nodeVersion: string;
  /** The `node` on this PATH (what a hook started with this PATH runs) and its version; undefined when not looked up. */
  hookNode?: { path: string | null; version: string | null };
  paths: CursorPaths;
  plugin: PluginState;
  mcp: McpState;
  bearer: string | null;
  jwtExpMs: number | null;
  refresh: { exists: boolean; mode: number | null; error: string | null; legacy: boolean; expiresAt: string | null; record: RefreshRecord | null };
  pin: { text: string | null; env: string | null; mode: number | null };
  /** Each setting in effect and its origin; the settings file as read (problems included). */
  settings: { rows: SettingRow[]; file: SettingsRead; mode: number | null };
  snapshot: {
    exists: boolean; mode: number | null; error: string | null; data: CapabilitySnapshot | null; notFlat: boolean;
    /** A folder stands where the file should be. */
    folder?: boolean;
    /** The last failed catalog fetch recorded beside the snapshot. */
    failure?: SnapshotFailure | null;
  };
  /** `holderAlive`: its pid lives and is still the process that took the lock; `origins`: where its page may be. */
  lock: { exists: boolean; text: string | null; data: DeviceLock | null; holderAlive: boolean; origins: string[] };
  copies: CopyReport[];
  /** When each hook last ran (empty when none has); undefined when not read. */
  hookRuns?: HookRuns;
}

const message = (error: unknown) => (error as Error).message;

export function readPluginState(name: string, env: NodeJS.ProcessEnv): PluginState {
  const installs = findInstalls(name, env).filter((c) => c.kind !== 'marketplace');
  const withTimes = installs.map((c) => ({ ...c, version: null, stale: false, differences: [], mtimeMs: statSync(c.dir).mtimeMs }));
  const install = activeCopy(withTimes);
  if (!install) return { install: null, installs: 0, manifestPointer: undefined, shippedProblems: null };
  const manifestPointer = readManifest(install.dir)?.mcpServers;
  let shippedProblems: string[] | null = null;
  try {
    shippedProblems = checkShippedMcpJson(JSON.parse(readFileSync(join(install.dir, 'mcp.json'), 'utf8')));
  } catch { /* unreadable: reported as such */ }
  return { install: { kind: install.kind, dir: install.dir }, installs: installs.length, manifestPointer, shippedProblems };
}

export function readMcpState(path: string, envBaseUrl: string | null, stored: RefreshRecord | null = null): McpState {
  const base = { path, mode: fileMode(path), entry: null, notLean: false };
  // The manager's reader: a folder, an unreadable file or broken JSON each get its clear message (file, position).
  let read: ReturnType<typeof readMcpConfigFile>;
  try { read = readMcpConfigFile(path); } catch (error) { return { ...base, exists: true, error: message(error), config: null }; }
  if (read.text === null) return { ...base, exists: false, error: null, config: null };
  const config: McpConfig = read.config;
  const servers = config.mcpServers;
  const entry = isObject(servers) && isObject(servers[MCP_SERVER_KEY]) ? servers[MCP_SERVER_KEY] : null;
  let notLean = false;
  try { notLean = normalizeMcpConfig(config, { envBaseUrl, issued: issuedFor(stored) }).changed; } catch { notLean = true; }
  return { ...base, exists: true, error: null, config, entry, notLean };
}

function readRefreshState(path: string): LocalState['refresh'] {
  const mode = fileMode(path);
  try {
    const stored = readRefreshFile(path);
    return { exists: mode !== null, mode, error: null, legacy: stored?.legacy === true, expiresAt: stored?.expires_at ?? null, record: recordOf(stored) };
  } catch (error) {
    return { exists: true, mode, error: message(error), legacy: false, expiresAt: null, record: null };
  }
}

function readSnapshotState(path: string, failurePath: string): LocalState['snapshot'] {
  const mode = fileMode(path);
  const failure = readSnapshotFailure(failurePath);
  let text: string | null;
  try {
    text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.capabilities });
  } catch (error) {
    const folder = (error as NodeJS.ErrnoException).code === 'EISDIR';
    return { exists: true, mode, error: folder ? 'is a folder, not a file' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, data: null, notFlat: false, folder, failure };
  }
  if (text === null) return { exists: false, mode, error: null, data: null, notFlat: false, failure };
  let value: unknown;
  try { value = JSON.parse(text); } catch { return { exists: true, mode, error: 'is not valid JSON', data: null, notFlat: false }; }
  const parsed = CapabilitySnapshotSchema.safeParse(value);
  if (parsed.success) return { exists: true, mode, error: null, data: parsed.data, notFlat: false, failure };
  const notFlat = isObject(value) && 'domains' in value && !Array.isArray(value.actions);
  return { exists: true, mode, error: notFlat ? 'holds the raw catalog (domains), not the flat action list' : 'does not have the snapshot shape', data: null, notFlat };
}

function readLockState(path: string, origins: string[]): LocalState['lock'] {
  const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.deviceLock });
  if (text === null) return { exists: false, text: null, data: null, holderAlive: false, origins };
  const raw = readLockFile(path) ?? {};
  const parsed = DeviceLockSchema.safeParse(raw);
  const data = parsed.success ? parsed.data : null;
  return { exists: true, text, data, holderAlive: data ? isLockHolderAlive(data.pid, data.pid_start) : false, origins };
}

export interface ReadOptions {
  env?: NodeJS.ProcessEnv;
  /** The plugin copy this script runs from (caches are compared with it). */
  source: string;
  envBaseUrl?: string | null;
  now?: number;
}

/** The first `node` on PATH, and its version (this process's own when it is the same file; else asked, 3 s at most). */
export function readHookNode(env: NodeJS.ProcessEnv): { path: string | null; version: string | null } {
  const path = findOnPath('node', { env });
  if (!path) return { path: null, version: null };
  const real = (p: string) => { try { return realpathSync(p); } catch { return p; } };
  if (real(path) === real(process.execPath)) return { path, version: process.versions.node };
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 3_000, env, windowsHide: true });
  const version = /^v?(\d+\.\d+\.\d+)/.exec(r.stdout?.trim() ?? '')?.[1] ?? null;
  return { path, version };
}

export function readLocalState(options: ReadOptions): LocalState {
  const env = options.env ?? process.env;
  const paths = cursorPaths(env);
  const refresh = readRefreshState(paths.refresh);
  const mcp = readMcpState(paths.mcpJson, options.envBaseUrl ?? null, refresh.record);
  const baseUrl = chooseBaseUrl(mcp.entry, options.envBaseUrl);
  const recorded = refresh.record && refreshBelongsTo(refresh.record, baseUrl) ? refresh.record.token_endpoint : null;
  const bearer = mcp.config ? bearerOf(mcp.config) : null;
  const name = readManifest(options.source)?.name;
  return {
    now: options.now ?? Date.now(),
    nodeVersion: process.versions.node,
    hookNode: readHookNode(env),
    paths,
    plugin: readPluginState(typeof name === 'string' ? name : MCP_SERVER_KEY, env),
    mcp,
    bearer,
    jwtExpMs: bearer ? jwtExpiryMs(bearer) : null,
    refresh,
    pin: { text: readTextIfExists(paths.project, { maxBytes: STATE_FILE_MAX_BYTES.project }), env: env.AGENTSTACK_PROJECT_ID?.trim() || null, mode: fileMode(paths.project) },
    settings: { ...settingsTable(env), mode: fileMode(paths.settings) },
    snapshot: readSnapshotState(paths.capabilities, paths.capabilitiesFailure),
    lock: readLockState(paths.deviceLock, signInOrigins(baseUrl, [recorded])),
    copies: inspectCopies(options.source, env),
    hookRuns: readHookRuns(paths.hookRuns),
  };
}
