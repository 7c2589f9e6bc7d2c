/**
 * What session start's steps share: the hook's options, the run's notes and next steps under one deadline, and the
 * facts every step reads (where the files are, which server, the lazily loaded network steps).
 */
import type { McpConfig } from '../../agentstack/mcpJson/credential.js';
import type { StoredRefresh } from '../../agentstack/auth/refreshStore.js';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import type { EffectiveSettings } from '../../agentstack/settings/effective.js';
import { quoteShort } from '../../platform/errors.js';
import type { QuietRun } from './quick.js';

export type NetModule = typeof import('./net.js');

export interface SessionStartOptions {
  /** Loads the network steps (lazily evaluated: see lib/entries/session-start.ts). */
  loadNet: () => Promise<NetModule>;
  env: NodeJS.ProcessEnv;
  pluginRoot: string;
  /** This bundle, run again as the detached device poller. */
  script: string;
  /** Overall deadline from now (ms); the hook's hooks.json timeout is 20 s. */
  budgetMs?: number;
  now?: () => number;
  log?: (message: string) => void;
  /** Told when the run had nothing to do (no note, no step, no network): its card can be given again (quick.ts). */
  onQuiet?: (run: QuietRun) => void;
}

export interface Ctx {
  notes: string[];
  todo: string[];
  deadline: number;
  now: () => number;
}

export const left = (ctx: Ctx) => ctx.deadline - ctx.now();
export const errText = (error: unknown) => quoteShort((error as Error)?.message ?? String(error), 240);

/** What the steps share: where the files are, which server, and the lazily loaded network steps. */
export interface Run {
  options: SessionStartOptions;
  /** The environment with the settings file applied (environment > settings > default). */
  env: NodeJS.ProcessEnv;
  ctx: Ctx;
  paths: CursorPaths;
  baseUrl: string;
  offline: boolean;
  /** mcp.json could not be read. */
  unreadable: boolean;
  stored: StoredRefresh | null;
  /** The settings in effect with their origins. */
  settings?: Pick<EffectiveSettings, 'rows'>;
  net: () => Promise<NetModule | null>;
  /** mcp.json as it is now (after another writer's change); throws as readMcpConfigFile does. */
  readConfig: () => McpConfig;
}

