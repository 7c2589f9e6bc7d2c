/**
 * The one reader of this machine's AgentStack state: it reads the Cursor dir once (mcp.json and its entry, the
 * refresh record, the identity cache, the project pin, the snapshot and its failure record, the device lock, the
 * sign-out record, the settings with their origins, the hooks' run records) into plain data, and decides the derived
 * facts once (derive.ts): the account's state, the project calls go to, the server, the expiry. Every view
 * (`device-code --status`, diagnose-local and its report, `config list`) renders what this returns; the hooks read
 * only what they need, through the same decisions.
 *
 * Secrets are read to judge them (expiry, placeholder) and are kept only in `bearer` and `refresh.record`: no view
 * prints them.
 */
import { isLockHolderAlive, readLockFile } from '../../platform/fs/fileLock.js';
import { fileMode, readTextIfExists } from '../../platform/fs/secureFile.js';
import { isObject } from '../../platform/text/isObject.js';
import { tilde } from '../../platform/text/tilde.js';
import { isLiveDeviceLock, signInOrigins } from '../signIn/lock.js';
import { running } from '../signIn/running.js';
import { jwtExpiryMs } from '../auth/jwt.js';
import { chooseBaseUrl, normalizeMcpConfig } from '../mcpJson/entry.js';
import { bearerOf, type McpConfig } from '../mcpJson/credential.js';
import { recordedExpiry } from '../auth/tokenFacts.js';
import { readMcpConfigFile } from '../mcpJson/file.js';
import { cursorPaths, type CursorPaths } from '../server/paths.js';
import { credentialStoreFacts, keychainBlock, type CredentialStoreFacts } from '../credentials/storeFacts.js';
import type { KeychainLook } from '../credentials/keychainLook.js';
import { issuedFor, placementOf, readRefreshFile, recordOf, refreshBelongsTo, type RefreshPlacement, type RefreshRecord } from '../auth/refreshStore.js';
import { readIdentity, type Identity } from '../auth/identityCache.js';
import { readProjectPin } from '../auth/projectPin.js';
import { isSignedOut } from '../auth/signedOut.js';
import { CapabilitySnapshotSchema, DeviceLockSchema, type CapabilitySnapshot, type DeviceLock, type SnapshotFailure } from '../../schemas/state.js';
import { readSnapshotFailure, readSnapshot } from '../snapshot/store.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { settingsTable, type EffectiveSettings, type SettingRow } from '../settings/effective.js';
import { projectIdIn } from '../settings/keys.js';
import type { SettingsRead } from '../settings/file.js';
import type { ManagedRead } from '../settings/managed.js';
import { readHookRuns, type HookRuns } from '../plugin/hookRuns.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';
import { deriveState, type DerivedState } from './derive.js';

export interface McpState {
  path: string;
  exists: boolean;
  /** The reader's message when the file is not valid JSON or not an object (the home folder written `~`). */
  error: string | null;
  /** Where the file stops being JSON, when the reader could tell. */
  errorAt?: { line: number; column: number } | null;
  config: McpConfig | null;
  mode: number | null;
  /** The agentstack entry as found (headers included; judged, never printed). */
  entry: Record<string, unknown> | null;
  /** True when the manager's normalization would change the entry. */
  notLean: boolean;
}

export interface CursorState {
  now: number;
  paths: CursorPaths;
  mcp: McpState;
  bearer: string | null;
  jwtExpMs: number | null;
  refresh: { exists: boolean; mode: number | null; error: string | null; legacy: boolean; expiresAt: string | null; scope?: string | null; record: RefreshRecord | null; placement?: RefreshPlacement | null };
  pin: { text: string | null; env: string | null; mode: number | null };
  /** Each setting in effect and its origin; the settings file as read (problems included). */
  settings: { rows: SettingRow[]; file: SettingsRead; managed: ManagedRead; mode: number | null };
  /** The credential-store setting, who set it, and where the refresh token is (and whether renewal may use it). */
  credentialStore: CredentialStoreFacts;
  snapshot: {
    exists: boolean; mode: number | null; error: string | null; data: CapabilitySnapshot | null; notFlat: boolean;
    /** A folder stands where the file should be. */
    folder?: boolean;
    /** The last failed catalog fetch recorded beside the snapshot. */
    failure?: SnapshotFailure | null;
  };
  /** `holderAlive`: its pid lives and is still the process that took the lock; `origins`: where its page may be. */
  lock: { exists: boolean; text: string | null; data: DeviceLock | null; holderAlive: boolean; origins: string[] };
  identity: Identity | null;
  signedOut: boolean;
  /** When each hook last ran (empty when none has). */
  hookRuns: HookRuns;
  /** What is decided from the above, once. */
  derived: DerivedState;
}

const message = (error: unknown) => (error as Error).message;

export function readMcpState(path: string, envBaseUrl: string | null, stored: RefreshRecord | null = null): McpState {
  const base = { path, mode: fileMode(path), entry: null, notLean: false };
  // The manager's reader: a folder, an unreadable file or broken JSON each get its clear message (file, position).
  let read: ReturnType<typeof readMcpConfigFile>;
  try {
    read = readMcpConfigFile(path);
  } catch (error) {
    const details = (error as { details?: { line?: unknown; column?: unknown } }).details;
    const errorAt = typeof details?.line === 'number' && typeof details.column === 'number' ? { line: details.line, column: details.column } : null;
    return { ...base, exists: true, error: message(error).split(path).join(tilde(path)), errorAt, config: null };
  }
  if (read.text === null) return { ...base, exists: false, error: null, config: null };
  const config: McpConfig = read.config;
  const servers = config.mcpServers;
  const entry = isObject(servers) && isObject(servers[MCP_SERVER_KEY]) ? servers[MCP_SERVER_KEY] : null;
  let notLean = false;
  try { notLean = normalizeMcpConfig(config, { envBaseUrl, issued: issuedFor(stored) }).changed; } catch { notLean = true; }
  return { ...base, exists: true, error: null, config, entry, notLean };
}

function readRefreshState(path: string): CursorState['refresh'] {
  const mode = fileMode(path);
  try {
    const stored = readRefreshFile(path);
    return { exists: mode !== null, mode, error: null, legacy: stored?.legacy === true, expiresAt: stored?.expires_at ?? null, scope: stored?.scope ?? null, record: recordOf(stored), placement: placementOf(stored) };
  } catch (error) {
    return { exists: true, mode, error: message(error), legacy: false, expiresAt: null, scope: null, record: null };
  }
}

function readSnapshotState(path: string, failurePath: string): CursorState['snapshot'] {
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

function readLockState(path: string, origins: string[]): CursorState['lock'] {
  const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.deviceLock });
  if (text === null) return { exists: false, text: null, data: null, holderAlive: false, origins };
  const raw = readLockFile(path) ?? {};
  const parsed = DeviceLockSchema.safeParse(raw);
  const data = parsed.success ? parsed.data : null;
  return { exists: true, text, data, holderAlive: data ? isLockHolderAlive(data.pid, data.pid_start) : false, origins };
}

export interface ReadStateOptions {
  env?: NodeJS.ProcessEnv;
  /** The base URL the environment and settings ask for (AGENTSTACK_BASE_URL, the `base-url` setting), or null. */
  envBaseUrl?: string | null;
  now?: number;
  /** The settings in effect with their origins (settings/effective.ts); read from `env` when not given. */
  settings?: EffectiveSettings;
  /** The keychain as the view just found it (credentials/keychainLook.ts); the record's word alone without it. */
  keychain?: KeychainLook | null;
}

export function readCursorState(options: ReadStateOptions = {}): CursorState {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now();
  const paths = cursorPaths(env);
  const refresh = readRefreshState(paths.refresh);
  const mcp = readMcpState(paths.mcpJson, options.envBaseUrl ?? null, refresh.record);
  // A sign-in without a refresh token records its token's end beside it.
  if (!refresh.exists && mcp.config) refresh.expiresAt = recordedExpiry(paths.token, bearerOf(mcp.config));
  const baseUrl = chooseBaseUrl(mcp.entry, options.envBaseUrl);
  const recorded = refresh.record && refreshBelongsTo(refresh.record, baseUrl) ? refresh.record.token_endpoint : null;
  const bearer = mcp.config ? bearerOf(mcp.config) : null;
  let pinText: string | null = null;
  try { pinText = readTextIfExists(paths.project, { maxBytes: STATE_FILE_MAX_BYTES.project }); } catch { /* judged by its gate as unreadable */ }
  const settings = { ...settingsTable(env, { applied: options.settings }), mode: fileMode(paths.settings) };
  const read = {
    now,
    paths,
    mcp,
    bearer,
    jwtExpMs: bearer ? jwtExpiryMs(bearer) : null,
    refresh,
    pin: { text: pinText, env: projectIdIn(env), mode: fileMode(paths.project) },
    settings,
    credentialStore: credentialStoreFacts(settings.rows.find((row) => row.key === 'credential-store'), refresh.placement ?? null, options.keychain),
    snapshot: readSnapshotState(paths.capabilities, paths.capabilitiesFailure),
    lock: readLockState(paths.deviceLock, signInOrigins(baseUrl, [recorded])),
    identity: readIdentity(paths.identity),
    signedOut: isSignedOut(paths.signedOut),
    hookRuns: readHookRuns(paths.hookRuns),
  };
  const { lock } = read;
  const waiting = lock.data && !lock.data.approved_at && isLiveDeviceLock(lock.data, { holderAlive: lock.holderAlive, now }) ? running(lock.data, lock.origins) : null;
  const mcpShown = { ...mcp, shown: tilde(paths.mcpJson) };
  return { ...read, derived: deriveState({ ...read, mcp: mcpShown, waiting, keychain: keychainBlock(read.credentialStore) }, options.envBaseUrl ?? null) };
}

/** The action names of the capability snapshot, or null when there is none (a small entry point for `config`). */
export function snapshotActionsOf(env: NodeJS.ProcessEnv): CapabilitySnapshot['actions'] | null {
  try { return readSnapshot(cursorPaths(env).capabilities)?.actions ?? null; } catch { return null; }
}

/** The credentials this machine holds (the Bearer, the refresh token): what a report must never show. */
export function credentialSecrets(paths: CursorPaths): string[] {
  const secrets: string[] = [];
  try { const bearer = bearerOf(readMcpConfigFile(paths.mcpJson).config); if (bearer) secrets.push(bearer); } catch { /* none readable */ }
  try { const refresh = readRefreshFile(paths.refresh)?.refresh_token; if (refresh) secrets.push(refresh); } catch { /* none readable */ }
  return secrets;
}

/** The notice for a pin file that holds no pin, or null (a bad AGENTSTACK_PROJECT_ID is the sign-in's own error). */
export function ignoredPinNotice(env: NodeJS.ProcessEnv): string | null {
  try { return readProjectPin(env, cursorPaths(env).project).ignored ?? null; } catch { return null; }
}
