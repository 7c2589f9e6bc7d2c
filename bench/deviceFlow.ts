/** Device flow latency: from the person's approval to the Bearer landing in mcp.json, against the server's interval. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { RunningCore } from '../core/index.js';
import { bearerOf } from '../lib/agentstack/mcpJson/credential.js';
import { cursorPaths } from '../lib/agentstack/server/paths.js';
import { envFor, newCursorDir } from './setup.js';

const DEVICE_CODE = join(fileURLToPath(new URL('.', import.meta.url)), '../hooks/scripts/device-code.mjs');

function bearerIn(path: string): string | null {
  try { return bearerOf(JSON.parse(readFileSync(path, 'utf8'))); } catch { return null; }
}

export async function measureDeviceFlow(core: RunningCore, count: number): Promise<{ interval: number; samples: number[] }> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const dir = newCursorDir('device');
    const mcpJson = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir }).mcpJson;
    const child = spawn(process.execPath, [DEVICE_CODE, '--json', '--no-browser'], { env: envFor(core, dir), stdio: ['ignore', 'pipe', 'ignore'] });
    const exited = new Promise((resolve) => child.on('close', resolve));
    for await (const line of createInterface({ input: child.stdout })) {
      const event = JSON.parse(line);
      if (event.event !== 'device_code') continue;
      // Approve at a random moment within the interval, as a person would.
      await new Promise((r) => setTimeout(r, Math.random() * core.faults().interval * 1000));
      await core.approve(event.user_code);
      const approvedAt = performance.now();
      while (!bearerIn(mcpJson)) await new Promise((r) => setTimeout(r, 5));
      samples.push(performance.now() - approvedAt);
      break;
    }
    await exited;
  }
  return { interval: core.faults().interval, samples };
}
