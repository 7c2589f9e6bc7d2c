/**
 * The hook tables: whole-process timings of the two hooks on one Node binary, side by side with `node -e 0` and
 * with rungs that show where the time goes (Node itself, the script loader, the first stage, the chunk's compile and
 * top-level work, the work itself), each as a ratio to `node -e 0` in the same rounds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningCore } from '../core/index.js';
import { markdownTable, median, pairedRatio, timeSideBySide, type Row, type TimedCommand } from './harness.js';
import { ASK_ACTION, POLICY_STEPS, envFor, installTokens } from './setup.js';
import { gateFiles } from '../lib/commands/managed/copy.js';

export interface HookDirs { fresh: string; big: string; legacy: string; refreshing: string; policy: string; deny: string; ask: string }
export interface Budget { other: number; execute: number; session: number; deny: number; after: number }
/** The hard line, as ratios to `node -e 0` of the same Node. */
export const BUDGETS: Budget = { other: 1.25, execute: 1.4, session: 1.5, deny: 2.0, after: 1.25 };
/**
 * The budgets, as ratios to the CommonJS floor (an empty .cjs that reads stdin and writes `{}`) of the same Node.
 * `after`: the after hook on another server's call (it runs after every MCP call of every server).
 */
export const FLOOR_BUDGETS: Budget = { other: 1.05, execute: 1.15, session: 1.15, deny: 1.5, after: 1.15 };

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** A row of `value` against `baseline`; `ratio`, when the caller paired them by round (pairedRatio). */
export function ratioRow(what: string, value: number, baseline: number, budget?: number, ratio = value / baseline): Row {
  return {
    what, figure: ms(value), ratio: `${ratio.toFixed(2)}x`,
    budget: budget ? `<= ${budget.toFixed(2)}x` : '',
    verdict: budget ? (ratio <= budget ? 'PASS' : 'FAIL') : '',
  };
}

/**
 * A hook's row: its median time, its ratio to the CommonJS floor against its budget, and to `node -e 0` against the
 * hard line (each ratio paired by round: harness.ts `pairedRatio`).
 */
export function hookRow(what: string, value: number, toBase: number, toFloor: number, kind?: keyof Budget): Row {
  if (!kind) return { what, figure: ms(value), ratio: `${toBase.toFixed(2)}x`, floor: `${toFloor.toFixed(2)}x` };
  const pass = toFloor <= FLOOR_BUDGETS[kind] && toBase <= BUDGETS[kind];
  return {
    what, figure: ms(value), ratio: `${toBase.toFixed(2)}x`, floor: `${toFloor.toFixed(2)}x`,
    budget: `<= ${FLOOR_BUDGETS[kind].toFixed(2)}x floor, <= ${BUDGETS[kind].toFixed(2)}x node`, verdict: pass ? 'PASS' : 'FAIL',
  };
}

export const sessionInput = (root: string) => JSON.stringify({ hook_event_name: 'sessionStart', session_id: 'bench', workspace_roots: [root] });
export const preMcpInput = (tool: string, url: string, server: string, args: unknown) =>
  JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: tool, tool_input: JSON.stringify(args), url, mcp_server_name: server });

/** An afterMCPExecution input: the call as before it, with its result and duration. */
export const afterMcpInput = (tool: string, url: string, server: string, args: unknown, result: unknown) =>
  JSON.stringify({ hook_event_name: 'afterMCPExecution', tool_name: tool, tool_input: JSON.stringify(args), result_json: JSON.stringify(result), duration: 42, mcp_server_name: server, mcp_server_url: url });

/** Floors: the least a hook script can cost, as an ES module and as CommonJS (read stdin, write one line). */
export function writeFloors(dir: string): { mjs: string; cjs: string } {
  const mjs = join(dir, 'floor.mjs');
  const cjs = join(dir, 'floor.cjs');
  writeFileSync(mjs, "import{readFileSync as r,writeSync as w}from'node:fs';r(0);w(1,'{}\\n');\n");
  writeFileSync(cjs, "const{readFileSync:r,writeSync:w}=require('node:fs');r(0);w(1,'{}\\n');\n");
  return { mjs, cjs };
}

export interface HookTableOptions {
  node: string;
  root: string;
  core: RunningCore;
  dirs: HookDirs;
  floors: { mjs: string; cjs: string };
  /** The environment every process of the table gets (the hooks add their own variables on top). */
  base: NodeJS.ProcessEnv;
  runs: number;
  warmup: number;
  /** Also time a session-start that refreshes its token against the core (slow: ~10 network round trips). */
  withRefresh?: boolean;
  /** Also show the rungs (where the time goes). */
  withRungs?: boolean;
}

const POLICY_ROW = 'pre-mcp-cap-check, execute with five steps vs 5,000 actions under a 20-rule policy';

/** An execute call of five steps in a Cursor dir with the 5,000-action snapshot and a 20-rule policy (setup.ts). */
function policyCommand(o: Pick<HookTableOptions, 'node' | 'root' | 'core' | 'dirs' | 'base'>): TimedCommand {
  const stdin = preMcpInput('agentstack.execute', o.core.mcpUrl, 'user-agentstack', { steps: POLICY_STEPS });
  return { name: 'execute policy', argv: [o.node, join(o.root, 'hooks/scripts/pre-mcp-cap-check.cjs')], env: { ...o.base, ...envFor(o.core, o.dirs.policy) }, stdin };
}

/** `BENCH_ONLY=policy`: that row alone, against its own baseline (a quick check while working on the rules). */
export async function policyTable(o: Pick<HookTableOptions, 'node' | 'root' | 'core' | 'dirs' | 'base' | 'runs' | 'warmup'>): Promise<string> {
  const samples = await timeSideBySide([
    { name: 'e0', argv: [o.node, '-e', '0'], env: o.base },
    { name: 'e0 again', argv: [o.node, '-e', '0'], env: o.base },
    policyCommand(o),
  ], { runs: o.runs, warmup: o.warmup });
  const base = median([...samples.get('e0')!, ...samples.get('e0 again')!]);
  const roundBase = samples.get('e0')!.map((v, i) => (v + samples.get('e0 again')![i]!) / 2);
  const policy = samples.get('execute policy')!;
  return markdownTable([{ what: '`node -e 0` (baseline)', figure: ms(base), ratio: '1.00x' }, ratioRow(POLICY_ROW, median(policy), base, BUDGETS.execute, pairedRatio(policy, roundBase))]);
}

/** The hook table: each row's ratio to `node -e 0` and to the CommonJS floor, and its budgets. */
function hookTable_(rows: Row[]): string {
  const lines = ['| what | median | vs `node -e 0` | vs floor | budget | verdict |', '|---|---:|---:|---:|---|---|'];
  for (const r of rows) lines.push(`| ${r.what} | ${r.figure} | ${r.ratio ?? ''} | ${r.floor ?? ''} | ${r.budget ?? ''} | ${r.verdict ?? ''} |`);
  return lines.join('\n');
}

export async function hookTable(o: HookTableOptions): Promise<{ table: string; notes: string[] }> {
  const script = (p: string) => join(o.root, 'hooks/scripts', p);
  const withBase = (env: NodeJS.ProcessEnv) => ({ ...o.base, ...env, HOME: env.HOME });
  const freshEnv = withBase(envFor(o.core, o.dirs.fresh));
  const bigEnv = withBase(envFor(o.core, o.dirs.big));
  const legacyEnv = withBase(envFor(o.core, o.dirs.legacy));
  // A first run after an install: no code cache, no compiled gate.
  const dropCache = (dir: string) => () => {
    for (const name of ['agentstack-compile-cache', 'agentstack-gate.json', 'agentstack-session-gate.json']) rmSync(join(dir, name), { recursive: true, force: true });
  };
  const dropGate = (dir: string) => () => rmSync(join(dir, 'agentstack-gate.json'), { force: true });
  const session = sessionInput(o.root);
  const other = preMcpInput('read_file', 'https://files.example.com/mcp', 'user-files', { path: '/x' });
  // The same call as older Cursor builds send it: named by its url alone (no mcp_server_name).
  const otherByUrl = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'read_file', tool_input: JSON.stringify({ path: '/x' }), url: 'https://files.example.com/mcp' });
  // Five steps under the 20-rule policy (confirm-writes), one of them a write: the rules ask.
  const ask = preMcpInput('agentstack.execute', o.core.mcpUrl, 'user-agentstack', { steps: [...POLICY_STEPS.slice(0, 4), { id: '5', action: ASK_ACTION }] });
  const execute = preMcpInput('agentstack.execute', o.core.mcpUrl, 'user-agentstack', { steps: [{ id: '1', action: 'data.op_4001' }, { id: '2', action: 'projects.list' }] });
  // Five actions no snapshot holds: the deny names the closest existing ones for each.
  const unknown = preMcpInput('agentstack.execute', o.core.mcpUrl, 'user-agentstack', { steps: ['nope.one', 'projects.lstx', 'data.op_40019', 'zzzzz.yyyy', 'admin.delete_all_users'].map((action, i) => ({ id: String(i), action })) });
  // An execute call to a server that is not AgentStack: the chunk loads and reads mcp.json, but checks nothing.
  const executeElsewhere = preMcpInput('agentstack.execute', 'https://other.example.com/mcp', 'user-other', { steps: [] });
  // The after hook: another server's call with its (small) result, and an execute call it records in the journal.
  const afterOther = afterMcpInput('read_file', 'https://files.example.com/mcp', 'user-files', { path: '/x' }, { content: [{ type: 'text', text: 'file contents' }] });
  const results = { ok: false, results: [{ id: '1', action: 'projects.list', ok: true, data: [] }, { id: '2', action: 'data.write', ok: false, error: { code: 'missing_capability', message: 'x' } }], skipped: 0 };
  const afterExecute = afterMcpInput('agentstack.execute', o.core.mcpUrl, 'user-agentstack', { steps: [{ id: '1', action: 'projects.list' }, { id: '2', action: 'data.write' }] }, { content: [{ type: 'text', text: JSON.stringify(results) }], structuredContent: results, isError: true });

  // The organization's copy of the gate (managed.mjs install-hooks): the same bundles in a folder outside the plugin,
  // run with the enterprise folder as the working directory, as Cursor runs an enterprise hook.
  const orgRoot = mkdtempSync(join(tmpdir(), 'agentstack-bench-org-'));
  const orgScripts = join(orgRoot, 'hooks', 'scripts');
  mkdirSync(orgScripts, { recursive: true });
  for (const [name, bytes] of gateFiles(join(o.root, 'hooks/scripts'))) writeFileSync(join(orgScripts, name), bytes);
  const orgCwd = join(orgRoot, 'enterprise');
  mkdirSync(orgCwd);

  // The baseline runs twice a round (its median is in every ratio, so it gets twice the samples).
  const baselineCommands: TimedCommand[] = [
    { name: 'e0', argv: [o.node, '-e', '0'], env: o.base },
    { name: 'e0 again', argv: [o.node, '-e', '0'], env: o.base },
  ];
  const baselineOf = (samples: Map<string, number[]>) => [...samples.get('e0')!, ...samples.get('e0 again')!];
  const commands: TimedCommand[] = [
    ...baselineCommands,
    { name: 'floor.mjs', argv: [o.node, o.floors.mjs], env: o.base, stdin: '{}' },
    // The floor twice a round too: every verdict is a ratio to it, so its own wobble counts as much as the hook's.
    { name: 'floor.cjs', argv: [o.node, o.floors.cjs], env: o.base, stdin: '{}' },
    { name: 'floor.cjs again', argv: [o.node, o.floors.cjs], env: o.base, stdin: '{}' },
    { name: 'other', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: freshEnv, stdin: other },
    { name: 'other by url', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: freshEnv, stdin: otherByUrl },
    { name: 'execute', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: bigEnv, stdin: execute },
    policyCommand(o),
    // Its own Cursor dir: a deny recorded in the same hook-run record as the execute row's neutral calls would make
    // each of them rewrite it.
    { name: 'deny', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: withBase(envFor(o.core, o.dirs.deny)), stdin: unknown },
    // Its own Cursor dir too (a journal record and an `ask` heartbeat at every run).
    { name: 'ask', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: withBase(envFor(o.core, o.dirs.ask)), stdin: ask },
    { name: 'session', argv: [o.node, script('session-start.cjs'), '--from-hook'], env: freshEnv, stdin: session },
    { name: 'after other', argv: [o.node, script('after-mcp-journal.cjs')], env: freshEnv, stdin: afterOther },
    { name: 'after execute', argv: [o.node, script('after-mcp-journal.cjs')], env: freshEnv, stdin: afterExecute },
    { name: 'org other', argv: [o.node, join(orgScripts, 'pre-mcp-cap-check.cjs')], env: freshEnv, stdin: other, cwd: orgCwd },
    { name: 'org after other', argv: [o.node, join(orgScripts, 'after-mcp-journal.cjs')], env: freshEnv, stdin: afterOther, cwd: orgCwd },
  ];
  const requests = () => Object.values(o.core.counters.requests).reduce((a, b) => a + b, 0);
  const before = requests();
  const samples = await timeSideBySide(commands, { runs: o.runs, warmup: o.warmup }).finally(() => rmSync(orgRoot, { recursive: true, force: true }));
  const sent = requests() - before;
  const m = (name: string) => median(samples.get(name)!);
  const baseline = baselineOf(samples);
  const base = median(baseline);
  // Each round's baseline: the mean of its two `node -e 0` runs.
  const e0 = samples.get('e0')!;
  const roundBase = e0.map((v, i) => (v + samples.get('e0 again')![i]!) / 2);
  // Each round's floor: the mean of its two runs.
  const roundFloor = samples.get('floor.cjs')!.map((v, i) => (v + samples.get('floor.cjs again')![i]!) / 2);
  const row = (what: string, name: string, kind?: keyof Budget) =>
    hookRow(what, m(name), pairedRatio(samples.get(name)!, roundBase), pairedRatio(samples.get(name)!, roundFloor), kind);
  const rows: Row[] = [
    { what: '`node -e 0` (baseline)', figure: ms(base), ratio: '1.00x' },
    row('floor, ES module: an empty .mjs that reads stdin and writes `{}`', 'floor.mjs'),
    row('floor, CommonJS: the same as a .cjs', 'floor.cjs'),
    row('pre-mcp-cap-check, call to another server', 'other', 'other'),
    row('pre-mcp-cap-check, call to another server named by its url alone (no mcp_server_name)', 'other by url', 'other'),
    row('pre-mcp-cap-check, execute vs 5,000-action snapshot', 'execute', 'execute'),
    row(POLICY_ROW, 'execute policy', 'execute'),
    row('pre-mcp-cap-check, deny of five unknown actions vs 5,000 (with suggestions)', 'deny', 'deny'),
    row('pre-mcp-cap-check, ask: five steps under the 20-rule policy, one a write (confirm-writes)', 'ask', 'deny'),
    row('session-start, fresh token and snapshot (nothing to do)', 'session', 'session'),
    row('after-mcp-journal, call to another server', 'after other', 'after'),
    row('after-mcp-journal, execute call recorded in the journal', 'after execute'),
    row("pre-mcp-cap-check, call to another server, from the organization's copy (install-hooks)", 'org other', 'other'),
    row("after-mcp-journal, call to another server, from the organization's copy (install-hooks)", 'org after other', 'after'),
  ];
  if (o.withRungs) {
    // Rounds of their own, with their own baseline: the cold rungs delete and rewrite the code cache in every round,
    // file-system work that must not land on the runs the budgets judge.
    const rungs = await timeSideBySide([
      ...baselineCommands,
      { name: 'execute chunk alone', argv: [o.node, script('pre-mcp-cap-check.execute.cjs')], env: o.base },
      { name: 'execute elsewhere', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: bigEnv, stdin: executeElsewhere },
      { name: 'execute cold', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: bigEnv, stdin: execute, before: dropCache(o.dirs.big) },
      { name: 'execute gate stale', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: bigEnv, stdin: execute, before: dropGate(o.dirs.big) },
      { name: 'execute legacy', argv: [o.node, script('pre-mcp-cap-check.cjs')], env: legacyEnv, stdin: execute },
      { name: 'session chunk alone', argv: [o.node, script('session-start.main.cjs')], env: o.base },
      { name: 'session cold', argv: [o.node, script('session-start.cjs'), '--from-hook'], env: freshEnv, stdin: session, before: dropCache(o.dirs.fresh) },
    ], { runs: Math.max(15, Math.round(o.runs / 2)), warmup: o.warmup });
    const r = (name: string) => median(rungs.get(name)!);
    const rungBase = median(baselineOf(rungs));
    rows.push(
      { what: "`node -e 0` in the rungs' own rounds (the rungs' baseline)", figure: ms(rungBase), ratio: '1.00x' },
      ratioRow('rung: the execute chunk alone (`node pre-mcp-cap-check.execute.cjs`: read, compile, top level; no cache)', r('execute chunk alone'), rungBase),
      ratioRow('rung: execute call to another server (first stage + chunk + mcp.json, no snapshot work)', r('execute elsewhere'), rungBase),
      ratioRow('rung: execute vs 5,000 actions with no code cache and no gate (first run after an install)', r('execute cold'), rungBase),
      ratioRow('rung: execute vs 5,000 actions with no gate (the full check, then the gate compiled: once after each change)', r('execute gate stale'), rungBase),
      ratioRow('rung: execute vs 5,000 actions in a snapshot written before 0.5.0 (every catalog field kept: 2.4x the bytes)', r('execute legacy'), rungBase),
      ratioRow('rung: the session chunk alone (`node session-start.main.cjs`: read, compile, top level; no cache)', r('session chunk alone'), rungBase),
      ratioRow('rung: session-start, fresh, with no code cache and no gate (first run after an install)', r('session cold'), rungBase),
    );
  }
  const sorted = [...baseline].sort((a, b) => a - b);
  const quartile = (q: number) => sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))]!;
  const notes = [
    `Noise: \`node -e 0\` took ${ms(quartile(0.25))} to ${ms(quartile(0.75))} in the middle half of the rounds; the CommonJS floor (an empty script) measured ${pairedRatio(samples.get('floor.cjs')!, roundBase).toFixed(2)}x, about 1.0x on a quiet machine (well above it, every ratio in the table is inflated alike).${o.withRungs ? ' The rungs were timed in rounds of their own, each ratio to the baseline of those rounds.' : ''}`,
    `Requests the fresh session-start runs sent to the server: ${sent} (expected 0).`,
  ];
  if (o.withRefresh) {
    const refreshEnv = withBase(envFor(o.core, o.dirs.refreshing));
    const grantsBefore = o.core.counters.refreshGrants;
    const refreshRuns = Math.max(5, Math.round(o.runs / 2));
    const refresh = await timeSideBySide([
      { name: 'e0', argv: [o.node, '-e', '0'], env: o.base },
      { name: 'refresh', argv: [o.node, script('session-start.cjs'), '--from-hook'], env: refreshEnv, stdin: session, before: () => installTokens(o.core, o.dirs.refreshing, 60) },
    ], { runs: refreshRuns, warmup: 1 });
    rows.push(ratioRow('session-start, refresh against the core', median(refresh.get('refresh')!), median(refresh.get('e0')!)));
    notes.push(`Refresh runs: ${o.core.counters.refreshGrants - grantsBefore} refresh grants for ${refreshRuns + 1} runs (one per run).`);
  }
  return { table: hookTable_(rows), notes };
}
