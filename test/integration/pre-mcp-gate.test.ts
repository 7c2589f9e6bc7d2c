/**
 * The hooks' compiled gates (agentstack-gate.json for the pre-MCP hook, agentstack-session-gate.json for session
 * start) against a reference core. A gate that holds answers without the hooks' chunks: proven by running a copy of
 * the plugin whose chunks are removed, where any run that needs them cannot answer `{}`. Every rule of the gate holds
 * when the gate is missing, stale, corrupt, a FIFO, or written under a concurrent sign-in.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { hookEnv, runHook, sessionStart, signInWith, SESSION_INPUT } from '../helpers/sessionStart.js';
import { readGate, readGateNames, serializeGate } from '../../lib/commands/preMcp/gate/gate.js';
import { expectWithinDeadline } from '../helpers/deadline.js';

const tmp = tempDir('agentstack-gate-');
let core: RunningCore;
let dir: string;
let chunkless: string;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  dir = join(tmp.path, 'cursor');
  mkdirSync(dir);
  await signInWith(dir, core.baseUrl, await core.issueTokens({ scope: 'openid offline_access profile:read projects:read actions:read actions:execute data:read' }));
  expect((await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).code).toBe(0);
  // A plugin copy without the hooks' chunks: only a run that needs none of them can answer.
  chunkless = copyPlugin(join(tmp.path, 'plugin'));
  for (const chunk of ['pre-mcp-cap-check.execute.cjs', 'session-start.main.cjs', 'session-start.net.cjs']) rmSync(join(chunkless, 'hooks/scripts', chunk));
});
afterAll(async () => {
  await core?.close();
  tmp.cleanup();
});

const gatePath = () => join(dir, 'agentstack-gate.json');
const call = (actions: string[]) => JSON.stringify({
  hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${core.baseUrl}/mcp`, cursor_version: '3.20.1',
  tool_input: JSON.stringify({ steps: actions.map((action, i) => ({ id: String(i), action, params: {} })) }),
});
async function preMcp(actions: string[], opts: { root?: string; env?: Record<string, string> } = {}) {
  const run = await runHook(join(opts.root ?? REPO_ROOT, 'hooks/scripts/pre-mcp-cap-check.cjs'), [], hookEnv(dir, core.baseUrl, opts.env), call(actions));
  expect(run.code).toBe(0);
  return run.json;
}
const fast = (actions: string[], env?: Record<string, string>) => preMcp(actions, { root: chunkless, env });

describe('the pre-MCP gate', { timeout: 90_000 }, () => {
  it('the full check compiles it; then a call of known actions is answered from it alone', async () => {
    rmSync(gatePath(), { force: true });
    expect(await fast(['projects.list'])).toMatchObject({ permission: 'ask' }); // no gate: the chunk is needed
    expect(await preMcp(['projects.list'])).toEqual({});
    const gate = readGate(gatePath())!;
    expect(gate.neutral).toContain('\nprojects.list\n');
    expect(gate.neutral).not.toContain('\ndata.write\n'); // its capability is not granted
    expect(readGateNames(join(dir, 'agentstack-gate-names.txt'), gate.names)!.known).toContain('\ndata.write\n');
    expect(await fast(['projects.list', 'system.ping'])).toEqual({});
  });

  it('an action the gate does not name, or a form it does not know, always goes the full way', async () => {
    await preMcp(['projects.list']);
    expect(await preMcp(['nope.nothing'])).toMatchObject({ permission: 'deny' });
    expect(await preMcp(['data.write'])).toMatchObject({ permission: 'deny' });
    expect(await fast(['data.write'])).toMatchObject({ permission: 'ask' }); // needed the chunk: not answered from the gate
  });

  it('an action the snapshot lacks is denied from the gate alone: the full check\'s answer, journal record and heartbeat', async () => {
    const journal = join(dir, 'agentstack-journal.jsonl');
    const lastRecord = () => {
      const { at, ...rest } = JSON.parse(readFileSync(journal, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(typeof at).toBe('string');
      return rest;
    };
    // Unknown names, one twice, beside a known action and one whose capability is not granted.
    const actions = ['nope.nothing', 'projects.list', 'projets.list', 'nope.nothing', 'data.write'];
    rmSync(gatePath(), { force: true });
    const full = await preMcp(actions); // no gate: the full check answers (and compiles one)
    expect(full).toMatchObject({ permission: 'deny' });
    expect(full.user_message).toContain('"projets.list" (closest: projects.list');
    expect(full.user_message).not.toContain('data.write');
    const fullRecord = lastRecord();
    expect(fullRecord).toMatchObject({ hook: 'pre', decision: 'deny', reasons: ['unknown_action'] });
    writeFileSync(join(dir, 'agentstack-hook-runs.json'), '{}');
    expect(await fast(actions)).toEqual(full);
    expect(lastRecord()).toEqual(fullRecord);
    expect(JSON.parse(readFileSync(join(dir, 'agentstack-hook-runs.json'), 'utf8'))['pre-mcp']).toMatchObject({ outcome: 'deny' });
    // Where WebAssembly cannot run (--jitless), the suggestions' loops over every name run as JavaScript: the same deny.
    const jitless = execFileSync(process.execPath, ['--jitless', join(chunkless, 'hooks/scripts/pre-mcp-cap-check.cjs')], { env: hookEnv(dir, core.baseUrl), input: call(actions), stdio: ['pipe', 'pipe', 'ignore'] });
    expect(JSON.parse(jitless.toString('utf8'))).toEqual(full);
    expect(lastRecord()).toEqual(fullRecord);
    // With the journal off (a gate of that environment), the deny is given and nothing is appended.
    const lines = readFileSync(journal, 'utf8').length;
    await preMcp(['projects.list'], { env: { AGENTSTACK_JOURNAL: 'off' } });
    expect(await fast(actions, { AGENTSTACK_JOURNAL: 'off' })).toEqual(full);
    expect(readFileSync(journal, 'utf8').length).toBe(lines);
  });

  it('config set journal off (the settings file, no variable): the gate records that, and its deny appends nothing', async () => {
    const journal = join(dir, 'agentstack-journal.jsonl');
    const size = () => (existsSync(journal) ? readFileSync(journal, 'utf8').length : 0);
    writeFileSync(join(dir, 'agentstack-settings.json'), JSON.stringify({ journal: 'off' }));
    try {
      rmSync(gatePath(), { force: true });
      expect(await preMcp(['projects.list'])).toEqual({}); // the full check compiles the gate
      expect(readGate(gatePath())).toMatchObject({ journal: false, denies: true });
      const before = size();
      expect(await fast(['nope.nothing'])).toMatchObject({ permission: 'deny' });
      expect(size()).toBe(before);
    } finally {
      rmSync(join(dir, 'agentstack-settings.json'), { force: true });
    }
  });

  it('the rules\' ask about a call nothing else has an opinion on is given from the gate alone: the full check\'s answer, journal record and heartbeat', async () => {
    const journal = join(dir, 'agentstack-journal.jsonl');
    const lastRecord = () => {
      const { at, ...rest } = JSON.parse(readFileSync(journal, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(typeof at).toBe('string');
      return rest;
    };
    const env = { AGENTSTACK_ASK_ACTIONS: 'projects.*,system.version' };
    // Asked-about actions, one twice, beside one the hook has no opinion on.
    const actions = ['projects.list', 'system.ping', 'system.version', 'projects.list', 'projects.get'];
    rmSync(gatePath(), { force: true });
    const full = await preMcp(actions, { env }); // no gate: the full check answers (and compiles one)
    expect(full).toMatchObject({ permission: 'ask' });
    expect(full.user_message).toContain('projects.list (rule "projects.*" in ask-actions');
    expect(full.user_message).not.toContain('system.ping');
    const fullRecord = lastRecord();
    expect(fullRecord).toMatchObject({ hook: 'pre', decision: 'ask', reasons: ['rule:ask-actions'] });
    writeFileSync(join(dir, 'agentstack-hook-runs.json'), '{}');
    expect(await fast(actions, env)).toEqual(full);
    expect(lastRecord()).toEqual(fullRecord);
    expect(JSON.parse(readFileSync(join(dir, 'agentstack-hook-runs.json'), 'utf8'))['pre-mcp']).toMatchObject({ outcome: 'ask' });
    // A step whose capability is not granted: the full check answers (the chunkless copy cannot, and says so).
    expect((await fast([...actions, 'data.write'], env)).user_message).toContain('pre-call check failed');
    expect(await preMcp([...actions, 'data.write'], { env })).toMatchObject({ permission: 'deny' });
  });

  it('per-action rules, or an input the full check would not read as a hook input: the deny is the full check\'s', async () => {
    writeFileSync(join(dir, 'agentstack-settings.json'), JSON.stringify({ 'ask-actions': 'nope.*' }));
    try {
      expect(await preMcp(['projects.list'])).toEqual({});
      expect(readGate(gatePath())).toMatchObject({ denies: false });
      expect(await fast(['nope.nothing'])).toMatchObject({ permission: 'ask' }); // needed the chunk
      expect(await preMcp(['nope.nothing'])).toMatchObject({ permission: 'deny' });
    } finally {
      rmSync(join(dir, 'agentstack-settings.json'));
    }
    expect(await preMcp(['projects.list'])).toEqual({});
    expect(readGate(gatePath())).toMatchObject({ denies: true });
    // cursor_version of the wrong type: the full check reads no hook input there and answers {}; the gate does not deny.
    const odd = JSON.stringify({ ...JSON.parse(call(['nope.nothing'])), cursor_version: 5 });
    const run = (root: string) => runHook(join(root, 'hooks/scripts/pre-mcp-cap-check.cjs'), [], hookEnv(dir, core.baseUrl), odd);
    expect((await run(REPO_ROOT)).json).toEqual({});
    expect((await run(chunkless)).json).toMatchObject({ permission: 'ask' });
  });

  it('a rule set after the gate was compiled holds at once (the settings file is one of its sources)', async () => {
    await preMcp(['projects.list']);
    expect(await fast(['projects.list'])).toEqual({});
    writeFileSync(join(dir, 'agentstack-settings.json'), JSON.stringify({ 'deny-actions': 'projects.list' }));
    try {
      expect(await preMcp(['projects.list'])).toMatchObject({ permission: 'deny' });
      expect(await fast(['projects.list'])).toMatchObject({ permission: 'ask' });
    } finally {
      rmSync(join(dir, 'agentstack-settings.json'));
    }
    expect(await preMcp(['projects.list'])).toEqual({});
  });

  it('the environment is part of the gate: a rule in AGENTSTACK_DENY_ACTIONS holds', async () => {
    await preMcp(['projects.list']);
    expect(await preMcp(['projects.list'], { env: { AGENTSTACK_DENY_ACTIONS: 'projects.*' } })).toMatchObject({ permission: 'deny' });
  });

  it('a sign-in that replaces the token makes the gate stale: the new token\'s capabilities decide', async () => {
    await preMcp(['projects.list']);
    await signInWith(dir, core.baseUrl, await core.issueTokens({ scope: 'openid profile:read actions:read' }));
    expect(await preMcp(['projects.list'])).toMatchObject({ permission: 'deny' });
    await signInWith(dir, core.baseUrl, await core.issueTokens({ scope: 'openid offline_access profile:read projects:read actions:read actions:execute data:read' }));
    expect(await preMcp(['projects.list'])).toEqual({});
  });

  it('a corrupt gate, a forged one whose stamps do not match, and a FIFO in its place: the full check answers', async () => {
    writeFileSync(gatePath(), '{not json');
    expect(await preMcp(['nope.nothing'])).toMatchObject({ permission: 'deny' });
    const gate = readGate(gatePath())!;
    writeFileSync(gatePath(), serializeGate({ ...gate, neutral: `${gate.neutral}nope.nothing\n`, stamps: gate.stamps.map(() => null) }));
    expect(await preMcp(['nope.nothing'])).toMatchObject({ permission: 'deny' });
    if (process.platform !== 'win32') {
      // The same two calls with no gate at all, in this run: what they cost here now.
      rmSync(gatePath());
      let started = performance.now();
      expect(await preMcp(['nope.nothing'])).toMatchObject({ permission: 'deny' });
      expect(await preMcp(['projects.list'])).toEqual({});
      const baselineMs = performance.now() - started;
      rmSync(gatePath(), { force: true });
      execFileSync('mkfifo', [gatePath()]);
      started = performance.now();
      expect(await preMcp(['nope.nothing'])).toMatchObject({ permission: 'deny' });
      expect(await preMcp(['projects.list'])).toEqual({});
      // A FIFO is never opened (an open would wait for a writer that never comes).
      expectWithinDeadline(performance.now() - started, { baselineMs, what: 'two calls with a FIFO as the gate' });
      rmSync(gatePath());
    }
  });

  it('a token due for renewal: still answered from the gate, which starts its renewal unless automatic sign-in is off', async () => {
    const scope = 'openid offline_access profile:read projects:read actions:read actions:execute data:read';
    core.setFaults({ endpointFaults: { token: { kind: 'hang' } } }); // no renewal lands while this runs
    try {
      await signInWith(dir, core.baseUrl, await core.issueTokens({ accessTokenTtl: 60, scope }));
      rmSync(gatePath(), { force: true });
      expect(await preMcp(['projects.list'], { env: { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' } })).toEqual({});
      // Inside the refresh window the gate holds until the token expires; with automatic sign-in off it renews nothing.
      expect(readGate(gatePath())).toMatchObject({ renewAt: null });
      expect(await fast(['projects.list'], { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).toEqual({});
      expect(existsSync(join(dir, 'agentstack-renew.started'))).toBe(false);
      // Another environment (automatic sign-in on): a gate of its own, naming when the token falls due.
      await preMcp(['projects.list']);
      expect(readGate(gatePath())!.renewAt).toBeLessThan(Date.now());
      rmSync(join(dir, 'agentstack-renew.started'), { force: true });
      expect(await fast(['projects.list'])).toEqual({});
      expect(existsSync(join(dir, 'agentstack-renew.started'))).toBe(true);
    } finally {
      core.setFaults({ endpointFaults: {} });
      await signInWith(dir, core.baseUrl, await core.issueTokens({ scope }));
    }
  });
});

describe('the session gate', { timeout: 90_000 }, () => {
  const startFrom = (root: string) => runHook(join(root, 'hooks/scripts/session-start.cjs'), ['--from-hook'], hookEnv(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }), JSON.stringify(SESSION_INPUT));
  const context = (run: { json: Record<string, unknown> }) => String(run.json.additional_context);

  it('a quiet start compiles its card; the next start with the same sources gives it again without the session logic', async () => {
    // A whole plugin copy compiles the gate (its card names its own root), then loses its chunks.
    const copy = copyPlugin(join(tmp.path, 'plugin-whole'));
    const first = await startFrom(copy);
    expect(context(first)).toContain('- Account: signed in');
    for (const chunk of ['session-start.main.cjs', 'session-start.net.cjs']) rmSync(join(copy, 'hooks/scripts', chunk));
    const again = await startFrom(copy);
    expect(context(again).replace(/- Token: .*/, '')).toBe(context(first).replace(/- Token: .*/, ''));
    expect(context(again)).toMatch(/- Token: valid until \S+ \(\d+ min left\)/);
    // A gate compiled for another plugin folder is not used: that copy's card would name the wrong root.
    expect(context(await startFrom(chunkless))).toContain('status check failed');
  });

  it('a change to a source (a new setting) is never hidden by the gate', async () => {
    await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    writeFileSync(join(dir, 'agentstack-settings.json'), JSON.stringify({ policy: 'readonly' }));
    try {
      expect(context(await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }))).toContain('Per-action rules: policy readonly');
    } finally {
      rmSync(join(dir, 'agentstack-settings.json'));
    }
    expect(context(await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }))).not.toContain('Per-action rules');
  });

  it('a corrupt session gate or a FIFO in its place: the full card, in time', async () => {
    const path = join(dir, 'agentstack-session-gate.json');
    writeFileSync(path, 'garbage');
    expect(context(await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }))).toContain('- Account: signed in');
    if (process.platform !== 'win32') {
      rmSync(path);
      execFileSync('mkfifo', [path]);
      expect(context(await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }))).toContain('- Account: signed in');
      rmSync(path);
    }
  });
});
