/**
 * The after hook past its first stage: the record of an execute call (the journal's code is a chunk loaded through
 * the code cache) and the command line. A plain chunk (build/bundles.mjs), so the first stage, which runs after every
 * MCP call of every server, parses neither this nor the code cache's loader.
 */
import { chunkCacheRoot } from '../../agentstack/server/paths.js';
import type { AfterFront } from './front.js';
import { orgGateInPlace, runsAsOrgGate } from '../../agentstack/plugin/orgGate.js';

export const AFTER_MCP_NAME = 'after-mcp-journal';

const USAGE = `Usage: node after-mcp-journal.cjs < hook-input.json

Cursor afterMCPExecution hook: appends one record of each agentstack.execute call to the activity
journal (~/.cursor/agentstack-journal.jsonl): its steps' actions and outcomes, never a parameter or
the result's data. Every other call is left alone. Off with: config.mjs set journal off.
Always answers {} and exits 0 (Cursor does not use this hook's answer).

Options:
  -h, --help    show this help`;

/** Prints the usage and exits on `--help`, exits 2 on an unknown option; returns when the arguments are fine. */
export async function parseAfterMcpArguments(): Promise<void> {
  const { parseCommandLine } = await import('../../platform/cli.js');
  parseCommandLine({ name: AFTER_MCP_NAME, usage: USAGE, options: {}, allowPositionals: true });
}

/**
 * Appends the record of a call the first stage kept (`front.kind === 'record'`). `scriptDir`: the hook's folder. One
 * record per call: where the organization's gate is in place, its copy records AgentStack's calls (without the code
 * cache, a file the person can write) and the plugin's own hook records nothing.
 */
export async function recordCall(front: Extract<AfterFront, { kind: 'record' }>, log: (message: string) => void, scriptDir: string): Promise<void> {
  const org = runsAsOrgGate(scriptDir);
  if (!org && orgGateInPlace()) return;
  if (!org) {
    const { useChunkCache } = await import('../../platform/chunkLoader.js');
    try {
      useChunkCache({ root: chunkCacheRoot(process.env), version: __PLUGIN_VERSION__ });
    } catch { /* no usable Cursor dir: no cache */ }
  }
  const { recordAfterMcp } = await import('./run.js');
  recordAfterMcp(front, { env: process.env, now: Date.now(), log });
}
