/**
 * diagnose-local's reader: this machine's AgentStack state as the one reader of the Cursor dir sees it
 * (agentstack/state/read.ts), plus what only diagnose looks at: the Node a hook would run, the installed plugin and
 * its copies. No judgement here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkShippedMcpJson } from '../audit/pluginRules.js';
import { activeCopy, inspectCopies, findInstalls, readManifest, type CopyKind, type CopyReport } from '../../agentstack/plugin/runtimeCopies.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { findOnPath } from '../../platform/findExecutable.js';
import { readCursorState, type CursorState, type McpState } from '../../agentstack/state/read.js';
import type { EffectiveSettings } from '../../agentstack/settings/effective.js';
import type { KeychainLook } from '../../agentstack/credentials/keychainLook.js';

export type { McpState };

export interface PluginState {
  /** The install Cursor most likely loads, or null when none is found. */
  install: { kind: CopyKind; dir: string } | null;
  installs: number;
  manifestPointer: unknown;
  /** Problems of the install's own mcp.json (URL-only rule); null when it could not be read. */
  shippedProblems: string[] | null;
}

export interface LocalState extends CursorState {
  nodeVersion: string;
  /** The `node` on this PATH (what a hook started with this PATH runs) and its version; undefined when not looked up. */
  hookNode?: { path: string | null; version: string | null };
  plugin: PluginState;
  copies: CopyReport[];
}

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

export interface ReadOptions {
  env?: NodeJS.ProcessEnv;
  /** The settings in effect with their origins; read from `env` when not given. */
  settings?: EffectiveSettings;
  /** The keychain as diagnose just found it. */
  keychain?: KeychainLook;
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
  const name = readManifest(options.source)?.name;
  return {
    ...readCursorState({ env, envBaseUrl: options.envBaseUrl ?? null, now: options.now, settings: options.settings, keychain: options.keychain }),
    nodeVersion: process.versions.node,
    hookNode: readHookNode(env),
    plugin: readPluginState(typeof name === 'string' ? name : MCP_SERVER_KEY, env),
    copies: inspectCopies(options.source, env),
  };
}
