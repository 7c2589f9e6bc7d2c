import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { runDeviceFlow, type FlowEvent } from '../../lib/agentstack/signIn/flow.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir();
  core.setFaults({ slowDown: 0, endpointFaults: {}, hostileVerificationUri: null });
});
afterEach(() => dir.cleanup());

describe('polling per RFC 8628 (spawned script)', () => {
  it('honours slow_down: the interval grows by 5 s and stays grown (two pending polls after it, each 6 s apart; exactly one slow_down from a core that enforces it)', async () => {
    core.setFaults({ slowDown: 1 });
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path });
    const code = await run.waitFor('device_code');
    const slow = await run.waitFor('slow_down');
    const at = Date.now();
    expect(slow).toEqual({ event: 'slow_down', interval: 6 });
    // Not approved yet: watch the next two polls arrive (both pending), then approve before the third.
    const polls: number[] = [];
    let seen = core.counters.tokenRequests;
    while (polls.length < 2 && Date.now() - at < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (core.counters.tokenRequests > seen) {
        seen = core.counters.tokenRequests;
        polls.push(Date.now());
      }
    }
    expect(polls).toHaveLength(2);
    expect(polls[0]! - at).toBeGreaterThanOrEqual(5_500);
    expect(polls[1]! - polls[0]!).toBeGreaterThanOrEqual(5_500);
    await core.approve(String(code.user_code));
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(Date.now() - polls[1]!).toBeGreaterThanOrEqual(5_500);
    expect(run.events.filter((e) => e.event === 'slow_down')).toHaveLength(1);
    expect(run.events.at(-1)?.event).toBe('authorized');
  }, 45_000);

  it('survives transient 5xx from the token endpoint', async () => {
    core.setFaults({ endpointFaults: { token: { kind: '5xx', times: 2 } } });
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path });
    const code = await run.waitFor('device_code');
    await core.approve(String(code.user_code));
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(run.events.at(-1)?.event).toBe('authorized');
    expect(result.stderr).toMatch(/HTTP 503; retrying in 2 s[\s\S]*retrying in 4 s/);
  }, 30_000);
});

describe('expiry', () => {
  it('a code that expires before approval ends with expired_token and a next step (exit 1)', async () => {
    const shortCore = await startCore({ port: 0, interval: 1, deviceCodeTtl: 3 });
    try {
      const run = runDeviceCode({ baseUrl: shortCore.baseUrl, cursorDir: dir.path });
      const code = await run.waitFor('device_code');
      expect(code.expires_in).toBeLessThanOrEqual(3);
      const result = await run.done;
      expect(result.code).toBe(1);
      expect(run.events.at(-1)).toMatchObject({ event: 'error', error: 'expired_token', message: expect.stringContaining('Run the sign-in again') });
      expect(existsSync(join(dir.path, 'mcp.json'))).toBe(false);
      expect(existsSync(join(dir.path, 'agentstack-device.lock'))).toBe(false);
    } finally {
      await shortCore.close();
    }
  }, 30_000);
});

describe('hostile verification URLs (kernel, injected opener)', () => {
  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html;base64,PHNjcmlwdD4=',
    'http://evil.example/activate',
    'https://agentstack.tech/activate?c=$(id)',
    'https://agentstack.tech/activate;calc.exe',
    'https://agentstack.tech/a&&calc|x',
  ])('refuses %s with unsafe_url and never calls the opener', async (hostile) => {
    core.setFaults({ hostileVerificationUri: hostile });
    const opened: string[] = [];
    const events: FlowEvent[] = [];
    const error = await runDeviceFlow({
      env: { AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_CURSOR_DIR: dir.path, DISPLAY: ':0' },
      scopes: { preset: 'readonly' },
      openBrowser: true,
      platform: 'linux',
      opener: async (url) => void opened.push(url),
      onEvent: (e) => events.push(e),
    }).catch((e) => e);
    expect(error.code).toBe('unsafe_url');
    expect(opened).toEqual([]);
    // Only the progress note before discovery: no code, no link, nothing a person could follow.
    expect(events.map((e) => e.event)).toEqual(['discovering']);
    expect(existsSync(join(dir.path, 'agentstack-device.lock'))).toBe(false);
  });

  it('opens a safe verification_uri_complete through the injected opener exactly once', async () => {
    const opened: string[] = [];
    const controller = new AbortController();
    const flow = runDeviceFlow({
      env: { AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_CURSOR_DIR: dir.path, DISPLAY: ':0' },
      scopes: { preset: 'readonly' },
      platform: 'linux',
      opener: async (url) => void opened.push(url),
      signal: controller.signal,
      onEvent: (e) => {
        if (e.event === 'device_code') void core.approve(e.user_code);
      },
    });
    const outcome = await flow;
    expect(outcome.kind).toBe('authorized');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(new RegExp(`^${core.baseUrl}/activate\\?user_code=`));
    const mcp = JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8'));
    expect(mcp.mcpServers.agentstack.type).toBe('http');
  });
});
