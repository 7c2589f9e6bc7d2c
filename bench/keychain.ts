/**
 * `BENCH_ONLY=keychain`: session start's renewal path with the refresh token in a real Secret Service (a private
 * D-Bus bus with GNOME Keyring, test/helpers/secretService.ts) against the same path with it in the file, side by
 * side in the same rounds and the same environment but `credential-store`. The keychain adds a `secret-tool lookup`
 * before the refresh and a `secret-tool store` after it. Printed; bench/results.md keeps the figures by hand.
 */
import { join } from 'node:path';
import type { RunningCore } from '../core/index.js';
import { saveRefresh } from '../lib/agentstack/credentials/credentialStore.js';
import { readRefreshFile } from '../lib/agentstack/auth/refreshStore.js';
import { cursorPaths } from '../lib/agentstack/server/paths.js';
import { secretServiceMissing, startSecretService } from '../test/helpers/secretService.js';
import { secretServiceKeychain } from '../lib/platform/keychain/secretService.js';
import { systemKeychain } from '../lib/platform/keychain/system.js';
import { spawnSync } from 'node:child_process';
import { markdownTable, median, timeSideBySide } from './harness.js';
import { ratioRow, sessionInput } from './hooks.js';
import { envFor, installTokens, newCursorDir } from './setup.js';

export async function keychainTable(o: { node: string; root: string; core: RunningCore; runs: number }): Promise<string> {
  const missing = secretServiceMissing();
  if (missing) return `Skipped: ${missing}.`;
  const session = await startSecretService();
  try {
    const bus = { DBUS_SESSION_BUS_ADDRESS: session.env.DBUS_SESSION_BUS_ADDRESS! };
    const fileDir = newCursorDir('renew-file');
    const keychainDir = newCursorDir('renew-keychain');
    const fileEnv = { ...envFor(o.core, fileDir), ...bus, AGENTSTACK_CREDENTIAL_STORE: 'file' };
    const keychainEnv = { ...envFor(o.core, keychainDir), ...bus, AGENTSTACK_CREDENTIAL_STORE: 'auto' };
    /** A token near expiry, its refresh token moved into the keychain (outside the timing). */
    const intoKeychain = async () => {
      await installTokens(o.core, keychainDir, 60);
      const paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: keychainDir });
      const stored = readRefreshFile(paths.refresh)!;
      await saveRefresh({ env: keychainEnv, paths, previous: null, record: { ...stored, refresh_token: stored.refresh_token! } });
    };
    const script = join(o.root, 'hooks/scripts/session-start.cjs');
    const stdin = sessionInput(o.root);
    const grants = o.core.counters.refreshGrants;
    const samples = await timeSideBySide([
      { name: 'e0', argv: [o.node, '-e', '0'], env: { PATH: process.env.PATH, HOME: fileDir } },
      { name: 'file', argv: [o.node, script, '--from-hook'], env: fileEnv, stdin, before: () => installTokens(o.core, fileDir, 60) },
      { name: 'keychain', argv: [o.node, script, '--from-hook'], env: keychainEnv, stdin, before: intoKeychain },
    ], { runs: o.runs, warmup: 1 });
    // The keychain's own work in a renewal (one read, one write), timed alone, each round beside secret-tool's and a
    // `node -e 0`.
    const keychain0 = systemKeychain({ env: { ...session.env } })!;
    const tool = secretServiceKeychain({ env: { ...session.env } });
    const key = { service: 'bench', server: 'https://bench.example/mcp', account: keychainDir };
    await keychain0.put(key, 'r'.repeat(43), 'bench');
    const calls: number[] = [];
    const toolCalls: number[] = [];
    const nodes: number[] = [];
    for (let i = 0; i < Math.max(9, o.runs); i++) {
      let t = performance.now();
      await keychain0.get(key);
      await keychain0.put(key, 'r'.repeat(43), 'bench');
      calls.push(performance.now() - t);
      t = performance.now();
      await tool.get(key);
      await tool.put(key, 'r'.repeat(43), 'bench');
      toolCalls.push(performance.now() - t);
      t = performance.now();
      spawnSync(o.node, ['-e', '0']);
      nodes.push(performance.now() - t);
    }
    const callsMs = median(calls);
    const toolMs = median(toolCalls);
    const nodeMs = median(nodes);
    const kept = readRefreshFile(cursorPaths({ AGENTSTACK_CURSOR_DIR: keychainDir }).refresh);
    const base = median(samples.get('e0')!);
    const file = median(samples.get('file')!);
    const keychain = median(samples.get('keychain')!);
    return [markdownTable([
      ratioRow('session-start, refresh against the core, refresh token in the file', file, base),
      ratioRow('session-start, refresh against the core, refresh token in the Secret Service', keychain, base),
      { what: 'the keychain\'s cost (difference of the medians; budget <= 30 ms)', figure: `${(keychain - file).toFixed(1)} ms`, ratio: `${((keychain - file) / base).toFixed(2)}x node -e 0` },
      { what: 'the same cost at a quiet machine\'s `node -e 0` of 56 ms (scaled by the ratio; a busy machine slows every process alike)', figure: `${((keychain - file) / base * 56).toFixed(1)} ms`, ratio: (keychain - file) / base * 56 <= 30 ? 'PASS' : 'FAIL' },
      { what: 'the keychain calls alone: a read and a write over the session bus (in-process, beside a `node -e 0` each round)', figure: `${callsMs.toFixed(1)} ms`, ratio: `${(callsMs / nodeMs).toFixed(2)}x node -e 0` },
      { what: 'the same calls at a quiet machine\'s `node -e 0` of 56 ms (scaled)', figure: `${(callsMs / nodeMs * 56).toFixed(1)} ms`, ratio: callsMs / nodeMs * 56 <= 30 ? 'PASS' : 'FAIL' },
      { what: 'for comparison, the same read and write through secret-tool lookup + store (same rounds)', figure: `${toolMs.toFixed(1)} ms`, ratio: `${(toolMs / nodeMs).toFixed(2)}x node -e 0` },
    ]), '', `\`node -e 0\` took ${base.toFixed(1)} ms in the session-start rounds, ${nodeMs.toFixed(1)} ms beside the keychain calls.`, `Refresh grants: ${o.core.counters.refreshGrants - grants} for ${2 * (o.runs + 1)} renewals; after the last one the record says store=${kept?.store} (expected keychain).`].join('\n');
  } finally {
    await session.stop();
  }
}
