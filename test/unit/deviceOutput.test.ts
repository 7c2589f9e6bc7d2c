import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createReporter, jsonErrorCode } from '../../lib/agentstack/signIn/output.js';
import type { FlowEvent } from '../../lib/agentstack/signIn/flow.js';
import { PluginError } from '../../lib/platform/errors.js';
import { findJsonError } from '../../lib/platform/text/jsonPosition.js';

function streams(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, streams: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t), isTTY } } };
}

const deviceCode: Extract<FlowEvent, { event: 'device_code' }> = { event: 'device_code', user_code: 'ABCD-EFGH', verification_uri: 'https://a.tech/activate', verification_uri_complete: 'https://a.tech/activate?user_code=ABCD-EFGH', expires_in: 600, interval: 5 };
const authorized: FlowEvent = { event: 'authorized', server_url: 'https://a.tech/mcp', mcp_json: '/x/mcp.json', project_id: 42, expires_at: '2030-01-01T00:00:00.000Z', capabilities: 9, who: 'dev@a.tech', scopes: ['openid', 'data:read'], uncovered_actions: 4, refresh_stored: true, warnings: [] };

describe('device-code output', () => {
  it('--json: exactly the issue\'s events and fields on stdout; human text on stderr', () => {
    const s = streams();
    const r = createReporter({ json: true, streams: s.streams });
    r.onEvent(deviceCode);
    r.onEvent({ event: 'browser', outcome: 'skipped', url: deviceCode.verification_uri_complete! });
    r.onEvent({ event: 'pending', seconds_left: 590 });
    r.onEvent({ event: 'retrying', message: 'HTTP 503', delay_s: 10 });
    r.onEvent({ event: 'slow_down', interval: 10 });
    r.onEvent(authorized);
    expect(s.out.map((l) => JSON.parse(l))).toEqual([
      { event: 'device_code', user_code: 'ABCD-EFGH', verification_uri: 'https://a.tech/activate', verification_uri_complete: 'https://a.tech/activate?user_code=ABCD-EFGH', expires_in: 600, interval: 5 },
      { event: 'pending' },
      { event: 'slow_down', interval: 10 },
      { event: 'authorized', server_url: 'https://a.tech/mcp', project_id: 42, expires_at: '2030-01-01T00:00:00.000Z', capabilities: 9, scopes: ['openid', 'data:read'], uncovered_actions: 4, next_step: expect.stringContaining('Customize > MCPs') },
    ]);
    expect(s.out.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    const text = s.err.join('');
    expect(text).toMatch(/! First copy your one-time code:\n {4}ABCD-EFGH\n/);
    expect(text).toContain('✓ Signed in to AgentStack as dev@a.tech.');
    expect(text).toContain('Scopes granted: openid data:read (4 of the 9 actions need a scope not granted)');
  });

  it('human mode: text on stdout, nothing JSON; errors on stderr with exit 1', () => {
    const s = streams();
    const r = createReporter({ json: false, streams: s.streams });
    r.onEvent(deviceCode);
    expect(s.out.join('')).toContain('Then enter it at: https://a.tech/activate');
    expect(r.fail(new PluginError('access_denied', 'denied; run it again'))).toBe(1);
    expect(s.err.join('')).toContain('X denied; run it again');
  });

  it('TTY: a spinner with the time left on stderr, cleared at the end', async () => {
    const s = streams(true);
    let clock = 0;
    const r = createReporter({ json: false, streams: s.streams, now: () => clock });
    r.onEvent(deviceCode);
    r.onEvent({ event: 'browser', outcome: 'opened', url: deviceCode.verification_uri_complete! });
    clock = 61_000;
    await new Promise((res) => setTimeout(res, 300));
    r.onEvent(authorized);
    const err = s.err.join('');
    expect(err).toMatch(/Waiting for approval in the browser… 8:59 left/);
    expect(err.endsWith('\r\x1b[K')).toBe(true);
  });

  it('already_running carries the running flow\'s URL and code', () => {
    const s = streams();
    createReporter({ json: true, streams: s.streams }).alreadyRunning({ pid: 7, started_at: 'a', expires_at: 'b', verification_uri: 'https://a/x', verification_uri_complete: null, user_code: 'WXYZ-1234' });
    expect(JSON.parse(s.out[0]!)).toEqual({ event: 'error', error: 'already_running', message: expect.any(String), verification_uri: 'https://a/x', verification_uri_complete: null, user_code: 'WXYZ-1234' });
  });

  it.each([['timeout', 'network'], ['malformed_file', 'invalid_config'], ['invalid_grant', 'server'], ['unsafe_url', 'unsafe_url'], ['expired_token', 'expired_token']] as const)(
    'maps %s to %s', (code, expected) => {
      expect(jsonErrorCode(new PluginError(code, 'x'))).toBe(expected);
    },
  );
});

describe('findJsonError agrees with JSON.parse', () => {
  it('on valid JSON and on random mutations of it', () => {
    const parses = (t: string) => { try { JSON.parse(t); return true; } catch { return false; } };
    fc.assert(fc.property(fc.json(), fc.nat(), fc.constantFrom('', '}', ',', '"', ':', ' ', 'x', '\n'), (json, at, insert) => {
      const i = at % (json.length + 1);
      const text = json.slice(0, i) + insert + json.slice(i);
      expect(findJsonError(text) === null).toBe(parses(text));
    }), { numRuns: 500 });
  });
});

describe('progress notes', () => {
  it('say which server is asked, on a terminal only: never with --json, never without a TTY', () => {
    const event = { event: 'discovering', server_url: 'https://a.tech/mcp' } as const;
    const tty = streams(true);
    createReporter({ json: false, streams: tty.streams }).onEvent(event);
    expect(tty.err.join('')).toBe('Asking https://a.tech/mcp how to sign in…\n');
    for (const [json, isTTY] of [[true, true], [false, false], [true, false]] as const) {
      const s = streams(isTTY);
      createReporter({ json, streams: s.streams }).onEvent(event);
      expect([...s.out, ...s.err]).toEqual([]);
    }
  });

  it('after approval: the waiting line stops and says the sign-in is being saved (human text only)', () => {
    const s = streams(false);
    createReporter({ json: true, streams: s.streams }).onEvent({ event: 'approved' });
    expect(s.out).toEqual([]);
    expect(s.err.join('')).toMatch(/^Approved\. Saving the sign-in/);
  });
});
