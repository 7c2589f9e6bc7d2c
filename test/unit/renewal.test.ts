/**
 * The hook's token renewal: whose credential it renews (due.ts), and the once-a-minute marker that keeps a burst of
 * calls from starting a process each (start.ts), met at real ages set with utimes.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RENEW_EVERY_MS, canRenew, shouldRenew, startRenewal } from '../../lib/agentstack/renewal/due.js';
import { RENEW_FLAG } from '../../lib/agentstack/signIn/pollerFlag.js';
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
    // What it was started with: its arguments, its process group (field 5 of /proc/self/stat), where its stdout goes,
    // and a variable of the environment it was given.
    writeFileSync(script, `const fs = require('node:fs');
let out = null; try { out = fs.readlinkSync('/proc/self/fd/1'); } catch {}
let pgrp = null; try { pgrp = Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2]); } catch {}
fs.writeFileSync(${JSON.stringify(ran)}, JSON.stringify({ args: process.argv.slice(2), pid: process.pid, pgrp, out, mark: process.env.RENEW_MARK ?? null }));`);
  });
  afterEach(() => tmp.cleanup());

  const start = (now: number) => startRenewal({ paths: { renewStarted: marker }, script, env: { PATH: process.env.PATH, RENEW_MARK: 'given' }, now });
  const markerAged = (ms: number, now: number) => {
    writeFileSync(marker, '');
    const at = (now - ms) / 1000;
    utimesSync(marker, at, at);
  };
  async function startedWithin(ms: number): Promise<string> {
    for (let i = 0; i < ms / 50 && !existsSync(ran); i++) await new Promise((r) => setTimeout(r, 50));
    return existsSync(ran) ? 'started' : 'not started';
  }
  async function started(): Promise<string> {
    for (let i = 0; i < 600 && !existsSync(ran); i++) await new Promise((r) => setTimeout(r, 50));
    return existsSync(ran) ? 'started' : 'not started';
  }

  it('no marker: started, and the marker is made (empty, 0600); the renewal runs detached, with the flag, the env given and no output', async () => {
    const now = Date.now();
    expect(start(now)).toBe('started');
    expect(readFileSync(marker, 'utf8')).toBe('');
    if (process.platform !== 'win32') expect(statSync(marker).mode & 0o777).toBe(0o600);
    expect(await started()).toBe('started');
    const child = JSON.parse(readFileSync(ran, 'utf8')) as { args: string[]; pid: number; pgrp: number | null; out: string | null; mark: string | null };
    expect(child.args).toEqual([RENEW_FLAG]);
    expect(child.mark).toBe('given');
    if (process.platform === 'linux') {
      expect(child.pgrp).toBe(child.pid); // its own process group: the hook's end does not take it along
      expect(child.out).toBe('/dev/null');
    }
  });

  it('a marker exactly a minute old: started (the minute is over)', () => {
    const now = Math.floor(Date.now() / 1000) * 1000;
    markerAged(RENEW_EVERY_MS, now);
    expect(start(now)).toBe('started');
  });

  it('an old marker 0644 is replaced by one that is 0600 and empty', () => {
    const now = Date.now();
    writeFileSync(marker, 'left over', { mode: 0o644 });
    chmodSync(marker, 0o644);
    const at = (now - 2 * RENEW_EVERY_MS) / 1000;
    utimesSync(marker, at, at);
    expect(start(now)).toBe('started');
    expect(readFileSync(marker, 'utf8')).toBe('');
    if (process.platform !== 'win32') expect(statSync(marker).mode & 0o777).toBe(0o600);
  });

  it('a folder in the marker\'s place: nothing is started (and nothing thrown)', () => {
    mkdirSync(marker);
    expect(start(Date.now())).toBe('recent');
  });

  it('a marker whose folder is missing: nothing is started (a renewal never starts without its marker)', async () => {
    const now = Date.now();
    expect(startRenewal({ paths: { renewStarted: join(tmp.path, 'gone', 'agentstack-renew.started') }, script, env: {}, now })).toBe('recent');
    expect(await startedWithin(500)).toBe('not started');
  });

  it('a marker that cannot be read (a link to nothing): nothing is started', async () => {
    if (process.platform === 'win32') return;
    symlinkSync(join(tmp.path, 'nowhere'), marker);
    expect(start(Date.now())).toBe('recent');
    expect(await startedWithin(500)).toBe('not started');
  });

  it('node missing at its path: failed, and neither a throw nor an unhandled error in the hook', async () => {
    const execPath = process.execPath;
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    process.execPath = join(tmp.path, 'no-node');
    try {
      expect(start(Date.now())).toBe('failed');
      // The spawn's error arrives after the call returns: an unhandled one would end the hook's process.
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      process.execPath = execPath;
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    expect(existsSync(ran)).toBe(false);
  });

  it('an environment the system refuses to start a process with (a variable over 128 KB): failed, not thrown', () => {
    if (process.platform !== 'linux') return; // Linux's limit on one variable's length
    const now = Date.now();
    expect(startRenewal({ paths: { renewStarted: marker }, script, env: { PATH: process.env.PATH, BIG: 'x'.repeat(200_000) }, now })).toBe('failed');
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
