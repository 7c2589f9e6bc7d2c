/**
 * Runs session start's steps in this test's own process (runSessionStart from lib/, with its real network module),
 * against a temporary Cursor dir and a server on 127.0.0.1: the tests that judge run.ts and snapshot.ts under
 * mutation, where a spawned, prebuilt hook would not run the mutated source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSessionStart, type SessionStartOptions } from '../../lib/commands/sessionStart/run.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { SESSION_START_SCRIPT } from './sessionStart.js';

export const PLUGIN_ROOT = '/plugins/agentstack';
export const loadNet = () => import('../../lib/commands/sessionStart/net.js');

export interface InProcessRun {
  card: string;
  /** What the steps logged (the hook writes it to its log). */
  logs: string[];
}

/** One session start in `cursorDir` against `baseUrl`; `env` adds to (or, set to undefined, removes from) the environment. */
export async function startSession(cursorDir: string, baseUrl: string, over: Partial<SessionStartOptions> & { extraEnv?: Record<string, string | undefined> } = {}): Promise<InProcessRun> {
  const logs: string[] = [];
  const { extraEnv, ...options } = over;
  const env: NodeJS.ProcessEnv = { HOME: cursorDir, AGENTSTACK_CURSOR_DIR: cursorDir, AGENTSTACK_BASE_URL: baseUrl, ...extraEnv };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const card = await runSessionStart({ loadNet, env, pluginRoot: PLUGIN_ROOT, script: SESSION_START_SCRIPT, log: (m) => logs.push(m), ...options });
  return { card, logs };
}

export const bearerIn = (cursorDir: string) => bearerOf(JSON.parse(readFileSync(join(cursorDir, 'mcp.json'), 'utf8')));

/** The lines of the card after "Action needed:". */
export const todoOf = (card: string) => card.split('\nAction needed:\n')[1]?.split('\n') ?? [];
