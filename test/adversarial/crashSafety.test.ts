/**
 * Crash safety. Fault: a process rewriting ~/.cursor/mcp.json through the real manager is killed with SIGKILL at a
 * random point (during start-up, while waiting for or holding the lock, between temp-file create and rename),
 * 200 times. Outcome: mcp.json is always exactly the old or the new complete file, every other server is intact,
 * the next writer breaks the dead writer's lock, and leftovers never take mcp.json's place and are swept.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBearer, type McpConfig } from '../../lib/agentstack/mcpJson/entry.js';
import { serializeMcpConfig, updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { fileMode } from '../../lib/platform/fs/secureFile.js';
import { bundleForTest } from '../helpers/bundle.js';
import { crowdedMcpJson } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/repo.js';
import { PRIVATE_MODE } from '../helpers/platform.js';

const KILLS = 200;
const LANES = 2;
const BASE = 'https://agentstack.tech';
const TEMP_NAME = /^\.mcp\.json(?:\.lock)?\.\d+\.[0-9a-f]+\.tmp$/;

let tmp: ReturnType<typeof tempDir>;
let writer: string;
beforeAll(async () => {
  tmp = tempDir('agentstack-crash-');
  writer = await bundleForTest('test/adversarial/fixtures/mcpWriter.ts', join(tmp.path, 'mcpWriter.mjs'));
});
afterAll(() => tmp.cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The only texts mcp.json may ever hold: the baseline with the Bearer `tok-<n>` applied, for some n. */
function expectedText(baseline: McpConfig, n: number): string {
  return serializeMcpConfig(applyBearer(structuredClone(baseline), { token: `tok-${n}`, baseUrl: BASE }).config);
}

/** Spawns a writer and SIGKILLs it at a random point; resolves once it is dead. */
async function killWriterAtRandom(path: string, start: number): Promise<void> {
  const child = spawn(process.execPath, [writer, path, String(start), BASE], { stdio: ['ignore', 'pipe', 'pipe'] });
  const dead = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (Math.random() < 0.25) {
    // anywhere from start-up to the first few writes
    await sleep(Math.random() * 80);
  } else {
    const ready = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await Promise.race([ready, dead]);
    await sleep(Math.random() * 12);
  }
  child.kill('SIGKILL');
  await dead;
}

interface LaneFigures { kills: number; tempLeft: number; lockLeft: number; advanced: number }

async function runLane(dir: string, kills: number, others: McpConfig): Promise<LaneFigures> {
  const path = join(dir, 'mcp.json');
  const baseline = others;
  const otherServers = JSON.stringify(Object.entries(baseline.mcpServers as object).filter(([k]) => k !== 'agentstack'));
  writeFileSync(path, expectedText(baseline, 0), { mode: 0o600 });
  let last = 0;
  const figures: LaneFigures = { kills: 0, tempLeft: 0, lockLeft: 0, advanced: 0 };
  for (let i = 1; i <= kills; i++) {
    const start = i * 1_000_000;
    await killWriterAtRandom(path, start);
    figures.kills += 1;
    const text = readFileSync(path, 'utf8');
    const token = /"Bearer tok-(\d+)"/.exec(text)?.[1];
    expect(token, `kill ${i}: no Bearer in mcp.json`).toBeDefined();
    const n = Number(token);
    // old (what the previous run left) or new (one of this run's writes), and complete byte for byte
    expect(n === last || (n >= start && n < start + 1_000_000), `kill ${i}: token ${n} is neither old (${last}) nor new`).toBe(true);
    expect(text).toBe(expectedText(baseline, n));
    const parsed = JSON.parse(text) as McpConfig;
    expect(JSON.stringify(Object.entries(parsed.mcpServers as object).filter(([k]) => k !== 'agentstack'))).toBe(otherServers);
    expect(fileMode(path)).toBe(PRIVATE_MODE);
    if (n !== last) figures.advanced += 1;
    last = n;
    const names = readdirSync(dir);
    // nothing but mcp.json may look like a config file Cursor could read
    for (const name of names) {
      expect(name === 'mcp.json' || name === 'mcp.json.lock' || TEMP_NAME.test(name) || /^mcp\.json\.lock\.\d+\.[0-9a-f]+\.stale$/.test(name), name).toBe(true);
    }
    if (names.some((n2) => TEMP_NAME.test(n2))) figures.tempLeft += 1;
    if (names.includes('mcp.json.lock')) figures.lockLeft += 1;
  }
  // One ordinary write afterwards: it breaks a dead writer's lock and sweeps the temp files the kills left.
  await updateMcpConfigFile(path, (config) => applyBearer(config, { token: 'tok-final', baseUrl: BASE }));
  expect(readFileSync(path, 'utf8')).toBe(serializeMcpConfig(applyBearer(structuredClone(baseline), { token: 'tok-final', baseUrl: BASE }).config));
  expect(readdirSync(dir).filter((n2) => n2 !== 'mcp.json')).toEqual([]);
  return figures;
}

describe('crash safety: mcp.json writer killed with SIGKILL', () => {
  it(`${KILLS} kills at random points: always the old or the new complete file, other servers intact, leftovers swept`, async () => {
    const baseline = crowdedMcpJson(60, { type: 'http', url: `${BASE}/mcp` });
    const lanes = Array.from({ length: LANES }, (_, lane) => {
      const dir = join(tmp.path, `lane-${lane}`);
      return import('node:fs').then((fs) => fs.mkdirSync(dir)).then(() => runLane(dir, KILLS / LANES, baseline));
    });
    const results = await Promise.all(lanes);
    const total = results.reduce((a, r) => ({ kills: a.kills + r.kills, tempLeft: a.tempLeft + r.tempLeft, lockLeft: a.lockLeft + r.lockLeft, advanced: a.advanced + r.advanced }));
    console.info(`[crashSafety] kills=${total.kills} killed-mid-write(temp left)=${total.tempLeft} killed-holding-lock=${total.lockLeft} runs-that-wrote=${total.advanced} losses=0`);
    expect(total.kills).toBe(KILLS);
    // the kills did land inside writes, not only before them
    expect(total.advanced).toBeGreaterThan(KILLS / 2);
    // ~35-55 s on two quiet cores, several times that on a loaded machine: the time is the 200 processes started, not the
    // writer. The timeout is a backstop for a hang.
  }, 600_000);
});
