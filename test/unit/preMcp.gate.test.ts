/**
 * The pre-MCP gate end to end in the test's own process: a full check compiles it (build.ts) from real files in a
 * temporary Cursor dir, the next call is answered from it (gate.ts), and its deny and ask (deny.ts, ask.ts) are the
 * full check's own answers, journal record and heartbeat included. What the hook's bundle runs, minus the bundle.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cursorPaths, type CursorPaths } from '../../lib/agentstack/server/paths.js';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { runPreMcp } from '../../lib/commands/preMcp/run.js';
import { checkGate, readGate, readGateNames, stampSources, type GateCheck } from '../../lib/commands/preMcp/gate/gate.js';
import { askFromGate, denyFromGate } from '../../lib/commands/preMcp/gate/deny.js';
import { compileGate, GATE_MAX_AGE_MS, refreshGate } from '../../lib/commands/preMcp/gate/build.js';
import { applySettings } from '../../lib/agentstack/settings/effective.js';
import { policyInEffect } from '../../lib/agentstack/policy/effective.js';
import { readSnapshotIndex } from '../../lib/agentstack/snapshot/actionIndex.js';
import { journalAnswer } from '../../lib/commands/preMcp/journal.js';
import { tempDir } from '../helpers/repo.js';
import { jwt } from '../helpers/stateFixtures.js';
import { REFRESH_WINDOW_MS } from '../../lib/agentstack/mcpJson/credential.js';

const PLUGIN = '9.9.9-test';
const ACTIONS = [
  { action: 'system.ping', required_cap: null },
  { action: 'projects.list', required_cap: 'projects:read' },
  { action: 'projects.create', required_cap: 'projects:write' },
  { action: 'data.write', required_cap: 'data:write' },
];

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let paths: CursorPaths;
beforeEach(() => {
  tmp = tempDir('agentstack-gate-inproc-');
  env = { AGENTSTACK_CURSOR_DIR: tmp.path, HOME: tmp.path };
  paths = cursorPaths(env);
  writeSnapshot(paths.capabilities, { fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: ACTIONS.length, actions: ACTIONS } as never);
});
afterEach(() => tmp.cleanup());

const call = (...actions: string[]) => ({
  hook_event_name: 'beforeMCPExecution',
  tool_name: 'agentstack.execute',
  mcp_server_name: 'user-agentstack',
  url: 'https://agentstack.tech/mcp',
  tool_input: JSON.stringify({ steps: actions.map((action, i) => ({ id: String(i + 1), action })) }),
});
const settings = (values: Record<string, unknown>) => writeFileSync(paths.settings, JSON.stringify(values));

/** What the hook's second stage does (check.ts): the gate first, its deny or ask, else the full check (which compiles a gate). */
function hook(raw: Record<string, unknown>, now = Date.now()): { gate: GateCheck; answer: object } {
  const gate = checkGate(raw, { paths, env, now, plugin: PLUGIN });
  const o = { paths, now, plugin: PLUGIN, log: () => {} };
  if (gate.kind === 'neutral') return { gate, answer: {} };
  if (gate.kind === 'deny' || gate.kind === 'ask') {
    const answer = gate.kind === 'deny' ? denyFromGate(raw, gate, o) : askFromGate(raw, gate, o);
    if (answer) return { gate, answer };
  }
  const answer = runPreMcp(raw, { env, now, gate: gate.kind === 'stale' ? { stamps: gate.stamps, plugin: PLUGIN } : undefined, known: gate.kind === 'call' || gate.kind === 'deny' ? gate.known : undefined });
  journalAnswer(raw, answer, { env, now, log: () => {} });
  return { gate, answer };
}
const journalLines = () => (existsSync(paths.journal) ? readFileSync(paths.journal, 'utf8').split('\n').filter(Boolean) : []);

describe('the gate a full check compiles', () => {
  it('the first call compiles it; the next call of known actions is answered {} from it alone', () => {
    expect(hook(call('projects.list')).gate.kind).toBe('stale');
    const gate = readGate(paths.gate)!;
    expect(gate).toMatchObject({ plugin: PLUGIN, denies: true, journal: true, renewAt: null });
    expect(gate.neutral.split('\n').filter(Boolean).sort()).toEqual(ACTIONS.map((a) => a.action).sort());
    expect(readGateNames(paths.gateNames, gate.names)!.asks).toBe('[]\n'); // no rules: nothing to ask about
    const second = hook(call('projects.list', 'system.ping'));
    expect(second).toEqual({ gate: { kind: 'neutral', record: true }, answer: {} });
  });

  it('an action the snapshot lacks: the gate denies it with the full check\'s own answer and journal record', () => {
    const full = runPreMcp(call('projects.lst'), { env });
    expect(full).toMatchObject({ permission: 'deny' });
    hook(call('projects.list'));
    const fromGate = hook(call('projects.lst', 'projects.list'));
    expect(fromGate.gate.kind).toBe('deny');
    expect(fromGate.answer).toEqual(runPreMcp(call('projects.lst', 'projects.list'), { env }));
    expect(fromGate.answer).toMatchObject({ permission: 'deny', agent_message: expect.stringContaining('projects.list') });
    const records = journalLines();
    expect(records).toHaveLength(1);
    expect(JSON.parse(records[0]!)).toMatchObject({ decision: 'deny' });
  });

  it('a snapshot of 1,000 actions (an index of the names larger than Node\'s shared buffer pool): the gate\'s deny is the full check\'s', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ action: `area${i % 40}.action${i}`, required_cap: null }));
    writeSnapshot(paths.capabilities, { fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: many.length, actions: many } as never);
    hook(call('area1.action1'));
    const raw = call('area1.actoin1');
    const gate = checkGate(raw, { paths, env, now: Date.now(), plugin: PLUGIN });
    expect(gate.kind).toBe('deny');
    const answer = denyFromGate(raw, gate as Extract<GateCheck, { kind: 'deny' }>, { paths, now: Date.now(), plugin: PLUGIN, log: () => {} });
    expect(answer).toEqual(runPreMcp(raw, { env }));
    expect(answer).toMatchObject({ agent_message: expect.stringContaining('area1.action1') });
  });

  it('`config set journal off` in the settings file: the gate\'s deny records nothing, as the full check', () => {
    settings({ journal: 'off' });
    hook(call('projects.list'));
    expect(readGate(paths.gate)).toMatchObject({ journal: false });
    const fromGate = hook(call('projects.lst'));
    expect(fromGate).toMatchObject({ gate: { kind: 'deny', journal: false }, answer: { permission: 'deny' } });
    expect(journalLines()).toEqual([]);
  });

  it('the person\'s ask rule: the gate asks with the full check\'s answer; other actions stay neutral', () => {
    settings({ 'ask-actions': 'projects.create' });
    const full = runPreMcp(call('projects.create', 'projects.list'), { env });
    expect(full).toMatchObject({ permission: 'ask' });
    hook(call('projects.list'));
    const names = readGateNames(paths.gateNames, readGate(paths.gate)!.names)!;
    expect(names.asks).toContain('projects.create');
    expect(readGate(paths.gate)!.denies).toBe(false); // per-action rules: an unknown action goes the full way
    const fromGate = hook(call('projects.create', 'projects.list'));
    expect(fromGate.gate.kind).toBe('ask');
    expect(fromGate.answer).toEqual(full);
    expect(JSON.parse(journalLines()[0]!)).toMatchObject({ decision: 'ask' });
    expect(hook(call('projects.list')).gate.kind).toBe('neutral');
    expect(hook(call('projects.lst')).gate.kind).toBe('call');
  });

  it('a deny rule: the denied action is neither neutral nor asked, and the full check denies it', () => {
    settings({ 'deny-actions': 'data.write' });
    hook(call('projects.list'));
    expect(readGate(paths.gate)!.neutral).not.toContain('\ndata.write\n');
    const denied = hook(call('data.write'));
    expect(denied.gate.kind).toBe('call');
    expect(denied.answer).toMatchObject({ permission: 'deny' });
  });

  it('`config set` after it was compiled, another plugin version, or its hour over: stale, and compiled again', () => {
    hook(call('projects.list'));
    const now = Date.now();
    settings({ 'deny-actions': 'projects.list' });
    expect(hook(call('projects.list'), now).answer).toMatchObject({ permission: 'deny' });
    expect(hook(call('projects.list'), now).gate.kind).toBe('call');
    expect(checkGate(call('projects.list'), { paths, env, now, plugin: 'other' }).kind).toBe('stale');
    expect(checkGate(call('projects.list'), { paths, env, now: now + GATE_MAX_AGE_MS, plugin: PLUGIN }).kind).toBe('stale');
    expect(checkGate(call('projects.list'), { paths, env: { ...env, AGENTSTACK_DEBUG: '1' }, now, plugin: PLUGIN }).kind).toBe('stale');
  });

  it('a source that changed while the gate was compiled: no gate is written', () => {
    const stamps = stampSources(paths);
    settings({ policy: 'readonly' });
    runPreMcp(call('projects.list'), { env, gate: { stamps, plugin: PLUGIN } });
    expect(existsSync(paths.gate)).toBe(false);
  });

  describe('a Device Code token', () => {
    const SERVER = 'http://127.0.0.1:9';
    const signedIn = (expS: number, refresh = true) => {
      const token = jwt({ sub: 'dev', iat: Math.floor(Date.now() / 1000) - 60, exp: expS, scope: 'actions:read projects:read' });
      writeFileSync(paths.mcpJson, JSON.stringify({ mcpServers: { agentstack: { type: 'http', url: `${SERVER}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }));
      if (refresh) {
        writeFileSync(paths.refresh, JSON.stringify({ refresh_token: 'rt-fixture-0123456789abcdef', token_type: 'Bearer', obtained_at: new Date().toISOString(), token_endpoint: `${SERVER}/api/oauth2/token`, client_id: 'cursor-plugin', resource: `${SERVER}/mcp` }), { mode: 0o600 });
      }
    };
    const ours = (...actions: string[]) => ({ ...call(...actions), url: `${SERVER}/mcp` });

    it('the gate holds until the token expires, starts its renewal from the refresh window, and names only what it grants', () => {
      const exp = Math.floor(Date.now() / 1000) + 1800;
      signedIn(exp);
      expect(hook(ours('projects.list')).gate.kind).toBe('stale');
      const gate = readGate(paths.gate)!;
      expect(gate).toMatchObject({ until: exp * 1000, renewAt: exp * 1000 - REFRESH_WINDOW_MS, bases: expect.arrayContaining([SERVER]) });
      expect(gate.neutral.split('\n').filter(Boolean).sort()).toEqual(['projects.list', 'system.ping']);
      expect(hook(ours('projects.list')).gate.kind).toBe('neutral');
      expect(hook(ours('projects.create')).gate.kind).toBe('call'); // its capability is not granted: the full check says so
    });

    it('no refresh token, or automatic sign-in off: no renewal from the gate', () => {
      const exp = Math.floor(Date.now() / 1000) + 1800;
      signedIn(exp, false);
      hook(ours('projects.list'));
      expect(readGate(paths.gate)).toMatchObject({ until: exp * 1000, renewAt: null });
      signedIn(exp);
      settings({ 'auto-login': false });
      hook(ours('projects.list'));
      expect(readGate(paths.gate)).toMatchObject({ until: exp * 1000, renewAt: null });
    });

    it('a token valid for longer than the gate\'s hour: the gate holds an hour', () => {
      const now = Date.now();
      signedIn(Math.floor(now / 1000) + 7200);
      hook(ours('projects.list'), now);
      expect(readGate(paths.gate)!.until).toBe(now + GATE_MAX_AGE_MS);
    });

    it('a token that is not a JWT: the gate holds until the refresh file\'s expires_at; with none, it holds an hour and starts no renewal', () => {
      const now = Date.now();
      const opaque = (expiresAt?: string) => {
        writeFileSync(paths.mcpJson, JSON.stringify({ mcpServers: { agentstack: { type: 'http', url: `${SERVER}/mcp`, headers: { Authorization: 'Bearer opaque-access-token-0123456789' } } } }));
        writeFileSync(paths.refresh, JSON.stringify({ refresh_token: 'rt-fixture-0123456789abcdef', token_type: 'Bearer', obtained_at: new Date(now).toISOString(), token_endpoint: `${SERVER}/api/oauth2/token`, client_id: 'cursor-plugin', resource: `${SERVER}/mcp`, ...(expiresAt ? { expires_at: expiresAt } : {}) }), { mode: 0o600 });
      };
      const expires = now + 1_800_000;
      opaque(new Date(expires).toISOString());
      hook(ours('projects.list'), now);
      expect(readGate(paths.gate)).toMatchObject({ until: expires, renewAt: expires - REFRESH_WINDOW_MS });
      opaque();
      hook(ours('projects.list'), now);
      expect(readGate(paths.gate)).toMatchObject({ until: now + GATE_MAX_AGE_MS, renewAt: null });
    });

    it('confirm-writes: an action whose capability the token lacks is not asked about from the gate (the full check denies it)', () => {
      signedIn(Math.floor(Date.now() / 1000) + 1800);
      settings({ policy: 'confirm-writes' });
      hook(ours('projects.list'));
      const names = readGateNames(paths.gateNames, readGate(paths.gate)!.names)!;
      expect(names.asks).not.toContain('projects.create');
      expect(names.asks).not.toContain('data.write');
    });

    it('a token already expired: no gate (each call needs the full check\'s notice or renewal)', () => {
      signedIn(Math.floor(Date.now() / 1000) - 10);
      hook(ours('projects.list'));
      expect(existsSync(paths.gate)).toBe(false);
    });
  });

  describe('the gate\'s own deny and ask: the answer, the log line, the journal record and the heartbeat', () => {
    const heartbeat = () => (JSON.parse(readFileSync(paths.hookRuns, 'utf8')) as Record<string, { outcome: string; plugin_version: string }>)['pre-mcp'];
    const run = (raw: Record<string, unknown>) => {
      const logs: string[] = [];
      const gate = checkGate(raw, { paths, env, now: Date.now(), plugin: PLUGIN });
      const o = { paths, now: Date.now(), plugin: PLUGIN, log: (m: string) => logs.push(m) };
      const answer = gate.kind === 'deny' ? denyFromGate(raw, gate, o) : gate.kind === 'ask' ? askFromGate(raw, gate, o) : null;
      return { kind: gate.kind, answer, logs };
    };

    it('deny', () => {
      hook(call('projects.list'));
      const raw = call('projects.lst');
      const { kind, answer, logs } = run(raw);
      expect(kind).toBe('deny');
      expect(answer).toEqual(runPreMcp(raw, { env }));
      expect(logs).toEqual([`deny: ${(answer as { agent_message: string }).agent_message}`]);
      expect(JSON.parse(journalLines()[0]!)).toMatchObject({ decision: 'deny', reasons: ['unknown_action'] });
      expect(heartbeat()).toMatchObject({ outcome: 'deny', plugin_version: PLUGIN });
    });

    it('ask, and with the journal off no record (the heartbeat still)', () => {
      settings({ 'ask-actions': 'projects.create', journal: 'off' });
      hook(call('projects.list'));
      const raw = call('projects.create');
      const { kind, answer, logs } = run(raw);
      expect(kind).toBe('ask');
      expect(answer).toEqual(runPreMcp(raw, { env }));
      expect(logs).toEqual([`ask: ${(answer as { agent_message: string }).agent_message}`]);
      expect(journalLines()).toEqual([]);
      expect(heartbeat()).toMatchObject({ outcome: 'ask', plugin_version: PLUGIN });
    });

    it('the ask\'s journal record names the rule that asked', () => {
      settings({ 'ask-actions': 'projects.create' });
      hook(call('projects.list'));
      run(call('projects.create'));
      expect(JSON.parse(journalLines()[0]!)).toMatchObject({ decision: 'ask', reasons: ['rule:ask-actions'] });
    });

    it('an input the full check would not read as a hook input: no answer from the gate, nothing recorded', () => {
      hook(call('projects.list'));
      const good = call('projects.lst');
      const gate = checkGate(good, { paths, env, now: Date.now(), plugin: PLUGIN });
      expect(gate.kind).toBe('deny');
      const logs: string[] = [];
      const o = { paths, now: Date.now(), plugin: PLUGIN, log: (m: string) => logs.push(m) };
      const bad = { ...good, url: 42 };
      expect(denyFromGate(bad, gate as Extract<GateCheck, { kind: 'deny' }>, o)).toBeNull();
      expect(askFromGate(bad, { asks: [{ action: 'projects.lst', why: 'w', key: 'ask-actions', where: 'x' }], journal: true }, o)).toBeNull();
      expect(logs).toEqual([]);
      expect(journalLines()).toEqual([]);
      expect(existsSync(paths.hookRuns)).toBe(false);
    });
  });

  describe('what the gate may answer for, by the snapshot and the rules', () => {
    const snapshot = (extra: Record<string, unknown>) => writeSnapshot(paths.capabilities, { fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: ACTIONS.length, actions: ACTIONS, ...extra } as never);
    const listed = (text: string) => text.split('\n').filter(Boolean).sort();
    const names = () => readGateNames(paths.gateNames, readGate(paths.gate)!.names)!;

    it('an action not yet approved: neither neutral nor asked about (the full check asks)', () => {
      snapshot({ unapproved: ['data.write'] });
      settings({ 'ask-actions': 'data.write,projects.create' });
      hook(call('projects.list'));
      expect(listed(readGate(paths.gate)!.neutral)).toEqual(['projects.list', 'system.ping']);
      expect(names().asks).not.toContain('data.write');
      expect(names().asks).toContain('projects.create');
    });

    it('an action not yet approved and no rules: not neutral either (the full check asks)', () => {
      snapshot({ unapproved: ['data.write'] });
      hook(call('projects.list'));
      expect(listed(readGate(paths.gate)!.neutral)).toEqual(['projects.create', 'projects.list', 'system.ping']);
    });

    it('a name in the snapshot that holds a newline is not listed: its parts are not taken for known actions', () => {
      snapshot({ actions: [...ACTIONS, { action: 'ghost\nshadow', required_cap: null }] });
      hook(call('projects.list'));
      expect(names().known.split('\n')).not.toContain('ghost');
      const { gate, answer } = hook(call('ghost'));
      expect(gate).toMatchObject({ kind: 'deny', unknown: ['ghost'] });
      expect(answer).toMatchObject({ permission: 'deny' });
    });

    it('two gates compiled one after the other bear different tags, each a time and a short random part', () => {
      const applied = applySettings(env);
      const input = {
        paths, env, settingsEnv: applied.env, stamps: stampSources(paths), config: {}, claims: null, policy: policyInEffect(applied.rows, applied.file, applied.managed),
        bases: ['https://agentstack.tech'], readSnapshot: () => readSnapshotIndex(paths.capabilities), now: Date.now(), plugin: PLUGIN,
      };
      const tags = [compileGate(input)!.gate.names, compileGate(input)!.gate.names];
      expect(tags[0]).not.toBe(tags[1]);
      for (const tag of tags) expect(tag).toMatch(new RegExp(`^${input.now.toString(36)}\\.[0-9a-z]{1,8}$`));
    });

    it('policy readonly: the read actions stay neutral; confirm-writes: the writes are asked about, the reads neutral', () => {
      settings({ policy: 'readonly' });
      hook(call('projects.list'));
      expect(listed(readGate(paths.gate)!.neutral)).toEqual(['projects.list', 'system.ping']);
      settings({ policy: 'confirm-writes' });
      hook(call('projects.list'));
      expect(listed(readGate(paths.gate)!.neutral)).toEqual(['projects.list', 'system.ping']);
      const asks = names().asks;
      expect(asks).toContain('\nprojects.create\u0000');
      expect(asks).toContain('\ndata.write\u0000');
      expect(asks).not.toContain('projects.list');
      expect(asks.split('\n').slice(1).filter(Boolean).map((l) => l.split('\u0000')[0]).sort()).toEqual(['data.write', 'projects.create']);
    });

    it('entries of the server\'s list the plugin could not read: the gate denies nothing for being unknown', () => {
      snapshot({ skipped_entries: 2 });
      hook(call('projects.list'));
      expect(readGate(paths.gate)).toMatchObject({ denies: false });
      expect(hook(call('projects.lst')).gate.kind).toBe('call');
    });

    it('rules that cannot be read: no gate (every call goes the full way and asks)', () => {
      writeFileSync(paths.settings, '{"policy": ');
      hook(call('projects.list'));
      expect(existsSync(paths.gate)).toBe(false);
    });

    it('no snapshot: nothing to compile from, no gate, nothing thrown', () => {
      const applied = applySettings(env);
      const input = {
        paths, env, settingsEnv: applied.env, stamps: stampSources(paths), config: {}, claims: null, policy: policyInEffect(applied.rows, applied.file, applied.managed),
        bases: ['https://agentstack.tech'], readSnapshot: () => readSnapshotIndex(join(paths.capabilities + '.missing')), now: Date.now(), plugin: PLUGIN,
      };
      expect(compileGate(input)).toBeNull();
      expect(refreshGate(input)).toBe(false);
      expect(compileGate({ ...input, readSnapshot: () => readSnapshotIndex(paths.capabilities) })).not.toBeNull();
      expect(compileGate({ ...input, stamps: null, readSnapshot: () => readSnapshotIndex(paths.capabilities) })).toBeNull();
    });

    it('refreshGate: true when it wrote the gate; false, never a throw, when a source changed or the gate cannot be written', () => {
      const applied = applySettings(env);
      const input = {
        paths, env, settingsEnv: applied.env, stamps: stampSources(paths), config: {}, claims: null, policy: policyInEffect(applied.rows, applied.file, applied.managed),
        bases: ['https://agentstack.tech'], readSnapshot: () => readSnapshotIndex(paths.capabilities), now: Date.now(), plugin: PLUGIN,
      };
      expect(refreshGate(input)).toBe(true);
      expect(readGate(paths.gate)).toMatchObject({ plugin: PLUGIN });
      settings({ debug: 'api' });
      expect(refreshGate(input)).toBe(false);
      rmSync(paths.gate);
      mkdirSync(paths.gate);
      expect(refreshGate({ ...input, stamps: stampSources(paths) })).toBe(false);
    });
  });

  describe('a Device Code credential the full check has something to say about: no gate', () => {
    const SERVER = 'http://127.0.0.1:9';
    it('a token the server refused: each call gets the credential notice, never the gate', () => {
      const exp = Math.floor(Date.now() / 1000) + 1800;
      const token = jwt({ sub: 'dev', iat: exp - 3600, exp, scope: 'actions:read projects:read' });
      writeFileSync(paths.mcpJson, JSON.stringify({ mcpServers: { agentstack: { type: 'http', url: `${SERVER}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }));
      writeFileSync(paths.capabilitiesFailure, JSON.stringify({ at: new Date().toISOString(), server_url: `${SERVER}/mcp`, message: 'HTTP 401', unauthorized: true }));
      const first = hook({ ...call('projects.list'), url: `${SERVER}/mcp` });
      expect(first.answer).toMatchObject({ permission: 'ask' });
      expect(existsSync(paths.gate)).toBe(false);
    });
    it('a token that ends this very millisecond: no gate', () => {
      const expS = Math.floor(Date.now() / 1000) + 1;
      const token = jwt({ sub: 'dev', iat: expS - 3600, exp: expS, scope: 'actions:read projects:read' });
      writeFileSync(paths.mcpJson, JSON.stringify({ mcpServers: { agentstack: { type: 'http', url: `${SERVER}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }));
      writeFileSync(paths.refresh, JSON.stringify({ refresh_token: 'rt-fixture-0123456789abcdef', token_type: 'Bearer', obtained_at: new Date().toISOString(), token_endpoint: `${SERVER}/api/oauth2/token`, client_id: 'cursor-plugin', resource: `${SERVER}/mcp` }), { mode: 0o600 });
      hook({ ...call('projects.list'), url: `${SERVER}/mcp` }, expS * 1000);
      expect(existsSync(paths.gate)).toBe(false);
    });
  });
});
