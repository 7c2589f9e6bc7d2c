/**
 * The hook's token renewal: whose credential it renews (due.ts), and the once-a-minute marker that keeps a burst of
 * calls from starting a process each (start.ts), met at real ages set with utimes.
 */
import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RENEW_EVERY_MS, canRenew, shouldRenew, startRenewal } from '../../lib/agentstack/renewal/due.js';
import { tempDir } from '../helpers/repo.js';

describe('canRenew / shouldRenew: only a credential this server issued, refreshable, with sign-in allowed', () => {
  const now = Date.now();
  const due = { state: 'ok' as const, expiresAtMs: now + 10_000, apiKey: false, token: 'tok' };
  const facts = { credential: due, refreshable: true, belongs: true, signedOut: false, autoLoginOff: false, now };
  it('all true: renewed when due', () => {
    expect(canRenew(facts)).toBe(true);
    expect(shouldRenew(facts)).toBe(true);
  });
  it.each([
    ['issued for another server', { belongs: false }],
    ['no refresh token', { refreshable: false }],
    ['signed out', { signedOut: true }],
    ['automatic sign-in off', { autoLoginOff: true }],
    ['an API key', { credential: { ...due, apiKey: true } }],
    ['no token', { credential: { ...due, token: null } }],
  ])('%s: never', (_why, change) => {
    expect(canRenew({ ...facts, ...change })).toBe(false);
    expect(shouldRenew({ ...facts, ...change })).toBe(false);
  });
});

describe('startRenewal: the marker of a given age', () => {
  let tmp: ReturnType<typeof tempDir>;
  let marker: string;
  let script: string;
  let ran: string;
  beforeEach(() => {
    tmp = tempDir('agentstack-renew-start-');
    marker = join(tmp.path, 'agentstack-renew.started');
    ran = join(tmp.path, 'ran');
    // Stands in for the session-start bundle: proves it was started, with the renewal flag.
    script = join(tmp.path, 'renew.cjs');
    writeFileSync(script, `require('node:fs').writeFileSync(${JSON.stringify(ran)}, process.argv.slice(2).join(' '));`);
  });
  afterEach(() => tmp.cleanup());

  const start = (now: number) => startRenewal({ paths: { renewStarted: marker }, script, env: { PATH: process.env.PATH }, now });
  const markerAged = (ms: number, now: number) => {
    writeFileSync(marker, '');
    const at = (now - ms) / 1000;
    utimesSync(marker, at, at);
  };
  async function started(): Promise<string> {
    for (let i = 0; i < 600 && !existsSync(ran); i++) await new Promise((r) => setTimeout(r, 50));
    return existsSync(ran) ? 'started' : 'not started';
  }

  it('no marker: started, and the marker is made', async () => {
    const now = Date.now();
    expect(start(now)).toBe('started');
    expect(existsSync(marker)).toBe(true);
    expect(await started()).toBe('started');
  });

  it('a marker 10 s old: not started again within the minute', () => {
    const now = Date.now();
    markerAged(10_000, now);
    expect(start(now)).toBe('recent');
    expect(statSync(marker).mtimeMs).toBeCloseTo(now - 10_000, -3);
  });

  it('a marker older than the minute: started, and the marker is fresh again', async () => {
    const now = Date.now();
    markerAged(RENEW_EVERY_MS + 5_000, now);
    expect(start(now)).toBe('started');
    expect(Math.abs(statSync(marker).mtimeMs - now)).toBeLessThan(RENEW_EVERY_MS / 2);
    expect(await started()).toBe('started');
    expect(start(now + 1_000)).toBe('recent'); // the burst right after it starts nothing
  });
});
