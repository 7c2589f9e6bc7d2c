/**
 * `npm run bench`: whole-process timings of the hooks and the probe, side by side with `node -e 0` and peers, plus
 * in-process figures and bundle sizes. Writes bench/results.md and prints it. A tool, not a test: it never fails on
 * noise (exit 0 unless it could not measure at all).
 */
import { cpus, totalmem } from 'node:os';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startCore } from '../core/index.js';
import { cursorPaths } from '../lib/agentstack/server/paths.js';
import { normalizeMcpConfig } from '../lib/agentstack/mcpJson/entry.js';
import { readSnapshot } from '../lib/agentstack/snapshot/store.js';
import { readSnapshotIndex } from '../lib/agentstack/snapshot/actionIndex.js';
// @ts-expect-error plain ES module shared with the build script
import { BUNDLES } from '../build/bundles.mjs';
import { crowdedMcpJson } from '../test/helpers/fixtures.js';
import { markdownTable, median, timeInProcess, timeSideBySide, type Row, type TimedCommand } from './harness.js';
import { inspectorCli, INSPECTOR_VERSION } from './peers.js';
import { envFor, installBigSnapshot, installTokens, newCursorDir } from './setup.js';
import { measureDeviceFlow } from './deviceFlow.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = 3;
const node = process.execPath;
const bundle = (p: string) => join(ROOT, p);
const ms = (v: number) => `${v.toFixed(1)} ms`;
/**
 * Environments for whole-process timing. NODE_EXTRA_CA_CERTS (set on this machine) makes every Node start-up ~40 ms
 * slower, which flatters every ratio to `node -e 0`; so the hooks are timed both ways.
 */
const CLEAN_ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
const MACHINE_ENV: NodeJS.ProcessEnv = { ...process.env };

function ratioRow(what: string, value: number, baseline: number, budget?: number): Row {
  const ratio = value / baseline;
  return {
    what, figure: ms(value), ratio: `${ratio.toFixed(2)}x`,
    budget: budget ? `<= ${budget.toFixed(2)}x` : '',
    verdict: budget ? (ratio <= budget ? 'PASS' : 'FAIL') : '',
  };
}

const sessionInput = JSON.stringify({ hook_event_name: 'sessionStart', session_id: 'bench', workspace_roots: [ROOT] });
const preMcpInput = (tool: string, url: string, server: string, args: unknown) =>
  JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: tool, tool_input: JSON.stringify(args), url, mcp_server_name: server });

async function main() {
  const core = await startCore({ port: 0, interval: 1, anonymousMcp: true });
  const out: string[] = [];
  try {
    // A signed-in Cursor dir with a fresh token, snapshot and cached identity: session-start needs no network.
    const fresh = newCursorDir('fresh');
    await installTokens(core, fresh, 3600);
    const freshEnv = envFor(core, fresh);
    await timeSideBySide([{ name: 'prime', argv: [node, bundle('hooks/scripts/session-start.mjs'), '--from-hook'], env: freshEnv, stdin: sessionInput }], { runs: 1, warmup: 0 });
    const big = newCursorDir('big');
    await installTokens(core, big, 3600);
    installBigSnapshot(big, 5000);
    const refreshing = newCursorDir('refresh');
    await installTokens(core, refreshing, 60);
    await timeSideBySide([{ name: 'prime', argv: [node, bundle('hooks/scripts/session-start.mjs'), '--from-hook'], env: envFor(core, refreshing), stdin: sessionInput }], { runs: 1, warmup: 0 });

    const floor = join(fresh, 'floor.mjs');
    writeFileSync(floor, "import{readFileSync as r,writeSync as w}from'node:fs';r(0);w(1,'{}\\n');\n");
    // The same hooks timed twice: in this machine's own environment, as Cursor would start them here, and in a
    // minimal one. Within each table every process, the baseline included, gets the same environment.
    for (const [label, base] of [['this machine\'s environment (NODE_EXTRA_CA_CERTS set)', MACHINE_ENV], ['minimal environment (PATH and HOME only)', CLEAN_ENV]] as const) {
      const withBase = (env: NodeJS.ProcessEnv) => ({ ...base, ...env, HOME: env.HOME });
      const requestsBefore = Object.values(core.counters.requests).reduce((a, b) => a + b, 0);
      const hookSamples = await timeSideBySide([
        { name: 'node -e 0', argv: [node, '-e', '0'], env: base },
        { name: 'floor', argv: [node, floor], env: base, stdin: '{}' },
        { name: 'pre-mcp (other server)', argv: [node, bundle('hooks/scripts/pre-mcp-cap-check.mjs')], env: withBase(freshEnv), stdin: preMcpInput('read_file', 'https://files.example.com/mcp', 'user-files', { path: '/x' }) },
        { name: 'pre-mcp (execute, 5,000 actions)', argv: [node, bundle('hooks/scripts/pre-mcp-cap-check.mjs')], env: withBase(envFor(core, big)), stdin: preMcpInput('agentstack.execute', core.mcpUrl, 'user-agentstack', { steps: [{ id: '1', action: 'data.op_4001' }, { id: '2', action: 'projects.list' }] }) },
        { name: 'session-start (fresh, no network)', argv: [node, bundle('hooks/scripts/session-start.mjs'), '--from-hook'], env: withBase(freshEnv), stdin: sessionInput },
      ], { runs: RUNS, warmup: WARMUP });
      const requestsDuringFresh = Object.values(core.counters.requests).reduce((a, b) => a + b, 0) - requestsBefore;
      const refreshBefore = core.counters.refreshGrants;
      const refreshSamples = await timeSideBySide([
        { name: 'node -e 0', argv: [node, '-e', '0'], env: base },
        { name: 'session-start (refresh against the core)', argv: [node, bundle('hooks/scripts/session-start.mjs'), '--from-hook'], env: withBase(envFor(core, refreshing)), stdin: sessionInput, before: () => installTokens(core, refreshing, 60) },
      ], { runs: Math.max(5, Math.round(RUNS / 2)), warmup: 1 });
      const refreshes = core.counters.refreshGrants - refreshBefore;
      const baseline = median(hookSamples.get('node -e 0')!);
      const rows: Row[] = [
        { what: '`node -e 0` (baseline)', figure: ms(baseline), ratio: '1.00x' },
        ratioRow('floor: an empty .mjs that reads stdin and writes `{}`', median(hookSamples.get('floor')!), baseline),
        ratioRow('pre-mcp-cap-check, call to another server', median(hookSamples.get('pre-mcp (other server)')!), baseline, 1.25),
        ratioRow('pre-mcp-cap-check, execute vs 5,000-action snapshot', median(hookSamples.get('pre-mcp (execute, 5,000 actions)')!), baseline, 1.4),
        ratioRow('session-start, fresh token and snapshot', median(hookSamples.get('session-start (fresh, no network)')!), baseline, 1.5),
        ratioRow('session-start, refresh against the core', median(refreshSamples.get('session-start (refresh against the core)')!), median(refreshSamples.get('node -e 0')!)),
      ];
      out.push(`## Hooks (whole process), ${label}`, '', markdownTable(rows), '',
        `Requests the fresh session-start runs sent to the server: ${requestsDuringFresh} (expected 0). Refresh runs: ${refreshes} refresh grants for ${refreshSamples.get('node -e 0')!.length + 1} runs (one per run).`, '');
    }

    // The probe vs the MCP Inspector CLI, against the same core.
    const token = (await core.issueTokens()).access_token;
    const probeEnv = { ...freshEnv, BENCH_TOKEN: token };
    const probe: TimedCommand = { name: 'probe', argv: [node, bundle('scripts/verify-mcp-surface-e2e.mjs'), '--json', '--only', 'mcp', '--base-url', core.baseUrl, '--token-env', 'BENCH_TOKEN'], env: probeEnv };
    const cli = inspectorCli(join(ROOT, 'bench'));
    const probeCommands: TimedCommand[] = [{ name: 'node -e 0', argv: [node, '-e', '0'], env: CLEAN_ENV }, probe];
    if (cli) probeCommands.push({ name: 'inspector', argv: [node, cli, '--cli', core.mcpUrl, '--transport', 'http', '--method', 'tools/list'], env: CLEAN_ENV });
    const probeSamples = await timeSideBySide(probeCommands, { runs: Math.max(5, Math.round(RUNS / 2)), warmup: 1 });
    const probeBase = median(probeSamples.get('node -e 0')!);
    const probeRows: Row[] = [
      ratioRow('verify-mcp-surface-e2e --only mcp (initialize, every tools/list page, 2 tools/call, DELETE)', median(probeSamples.get('probe')!), probeBase),
    ];
    if (cli) {
      const inspector = median(probeSamples.get('inspector')!);
      probeRows.push(ratioRow(`Inspector CLI ${INSPECTOR_VERSION} --method tools/list (initialize + one tools/list)`, inspector, probeBase));
      probeRows.push({ what: 'the probe relative to the Inspector CLI', figure: '', ratio: `${(median(probeSamples.get('probe')!) / inspector).toFixed(2)}x` });
    }
    else probeRows.push({ what: 'Inspector CLI: not installed (npm registry unreachable?)', figure: '-' });
    out.push('## MCP probe vs peer (whole process, same core)', '', markdownTable(probeRows), '');

    // Device flow: approval to the Bearer landing in mcp.json, against the server's interval.
    const device = await measureDeviceFlow(core, 5);
    out.push('## Device flow', '', markdownTable([
      { what: `approval -> Bearer in mcp.json (interval ${device.interval} s, ${device.samples.length} sign-ins, approved at a random moment)`, figure: ms(median(device.samples)), ratio: `${(median(device.samples) / (device.interval * 1000)).toFixed(2)}x interval` },
    ]), '');

    // In-process figures.
    const crowded = crowdedMcpJson(500, { type: 'http', url: `${core.baseUrl}/mcp`, headers: { Authorization: `Bearer ${token}` }, tools: { x: {} } });
    const normalizeMs = timeInProcess(() => normalizeMcpConfig(structuredClone(crowded), { envBaseUrl: core.baseUrl }), { runs: 50, warmup: 5 });
    const snapshotPath = cursorPaths({ AGENTSTACK_CURSOR_DIR: big }).capabilities;
    const loadMs = timeInProcess(() => readSnapshot(snapshotPath), { runs: 30, warmup: 3 });
    const indexMs = timeInProcess(() => readSnapshotIndex(snapshotPath), { runs: 30, warmup: 3 });
    out.push('## In-process', '', markdownTable([
      { what: 'normalize an mcp.json with 500 other servers (clone + normalize)', figure: `${normalizeMs.toFixed(2)} ms` },
      { what: 'load a 5,000-action snapshot, full schema check (capabilities.readSnapshot)', figure: `${loadMs.toFixed(2)} ms` },
      { what: "load a 5,000-action snapshot, the pre-MCP hook's index (readSnapshotIndex)", figure: `${indexMs.toFixed(2)} ms` },
    ]), '');

    // Bundle sizes, and what the pre-MCP hook must not contain.
    const sizes: Row[] = (BUNDLES as Array<{ entry: string; out: string }>).map(({ out: file }) => ({ what: `\`${file}\``, figure: `${(statSync(bundle(file)).size / 1024).toFixed(0)} KiB` }));
    const meta = await build({ absWorkingDir: ROOT, entryPoints: [join(ROOT, 'lib/entries/pre-mcp-cap-check.ts')], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const heavy = Object.keys(meta.metafile!.inputs).filter((p) => /@modelcontextprotocol|oauth4webapi|undici|node_modules\/conf\//.test(p));
    out.push('## Bundle sizes', '', markdownTable(sizes, { figure: 'size' }), '', `pre-mcp-cap-check.mjs includes the MCP SDK, oauth4webapi, undici or conf: ${heavy.length ? `YES (${heavy.slice(0, 3).join(', ')})` : 'no'}.`, '');
  } finally {
    await core.close();
  }

  const cpu = cpus();
  const header = [
    '# Benchmark results', '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` on ${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}.`,
    `Whole-process figures are medians of ${RUNS} runs after ${WARMUP} warm-up runs, every command run in turn in each round ("side by side"), as ratios to \`node -e 0\` measured in the same rounds, every process in a table with the same environment. The hooks are timed in this machine's own environment (where NODE_EXTRA_CA_CERTS alone adds ~40 ms to every Node start-up, the baseline's included) and in a minimal one; the other tables use the minimal one. The "floor" row is the least any \`.mjs\` hook can cost: the ES module loader plus reading stdin and writing one line. the bench never fails on noise.`, '',
  ];
  const text = `${header.join('\n')}\n${out.join('\n')}`;
  writeFileSync(join(ROOT, 'bench/results.md'), text);
  process.stdout.write(text);
}

await main();

