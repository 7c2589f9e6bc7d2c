import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/repo.js';
import { hasDisplay, isOpenableUrl, openInBrowser } from '../../lib/agentstack/signIn/browser.js';
import { acquireDeviceLock, readDeviceLock } from '../../lib/agentstack/signIn/lock.js';
import { PRIVATE_MODE } from '../helpers/platform.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';

// The loosest MCP URL: plain http on loopback (loopbackRule.test.ts holds the rule for an https one).
const LOOPBACK_MCP = 'http://127.0.0.1:8080/mcp';

const HOSTILE_URLS = [
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'http://evil.example/activate',
  'https://agentstack.tech/activate?x=$(touch /tmp/pwned)',
  'https://agentstack.tech/activate;rm -rf ~',
  'https://agentstack.tech/a`id`',
  'https://agentstack.tech/a|calc',
  'https://agentstack.tech/a\ncalc',
  'https://user:pw@agentstack.tech/activate',
  'vbscript:msgbox',
  '',
];

describe('safe browser opening', () => {
  it.each(HOSTILE_URLS)('refuses %j and never calls the opener', async (url) => {
    expect(isOpenableUrl(url, LOOPBACK_MCP)).toBe(false);
    const calls: string[] = [];
    await expect(openInBrowser(url, { mcpUrl: LOOPBACK_MCP, opener: async (u) => void calls.push(u), env: { DISPLAY: ':0' } })).rejects.toMatchObject({ code: 'unsafe_url' });
    expect(calls).toEqual([]);
  });

  it.each(['https://agentstack.tech/activate?user_code=ABCD-EFGH', 'http://127.0.0.1:8080/activate', 'http://localhost/x?a=1&b=2'])('opens %s', async (url) => {
    const calls: string[] = [];
    expect(await openInBrowser(url, { mcpUrl: LOOPBACK_MCP, opener: async (u) => void calls.push(u), env: { DISPLAY: ':0' }, platform: 'linux' })).toBe('opened');
    expect(calls).toEqual([url]);
  });

  it('does not open without a display, and reports a failing opener', async () => {
    const calls: string[] = [];
    expect(await openInBrowser('https://a.tech/x', { mcpUrl: 'https://a.tech/mcp', opener: async (u) => void calls.push(u), env: {}, platform: 'linux' })).toBe('no_display');
    expect(calls).toEqual([]);
    expect(await openInBrowser('https://a.tech/x', { mcpUrl: 'https://a.tech/mcp', opener: async () => { throw new Error('no xdg-open'); }, env: { WAYLAND_DISPLAY: 'w' }, platform: 'linux' })).toBe('failed');
    expect(hasDisplay({}, 'darwin')).toBe(true);
  });
});

describe('device lock', () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  beforeEach(() => { dir = tempDir(); path = join(dir.path, 'agentstack-device.lock'); });
  afterEach(() => dir.cleanup());

  it('is exclusive, 0600, carries the payload, and is released', () => {
    const first = acquireDeviceLock(path, { expiresAt: new Date(Date.now() + 60_000) });
    if (first.kind === 'held') throw new Error('expected the lock');
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    first.lock.update({ user_code: 'ABCD-EFGH', verification_uri: 'https://a/activate', verification_uri_complete: 'https://a/activate?user_code=ABCD-EFGH' });
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    const second = acquireDeviceLock(path, { expiresAt: new Date(Date.now() + 60_000) });
    expect(second).toMatchObject({ kind: 'held', holder: { pid: process.pid, user_code: 'ABCD-EFGH', verification_uri: 'https://a/activate' } });
    first.lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('replaces a lock whose pid is dead, or whose expires_at passed, or that holds garbage', () => {
    const dead = NEVER_A_PID;
    for (const stale of [
      { pid: dead, started_at: 'x', expires_at: new Date(Date.now() + 60_000).toISOString(), user_code: 'OLD' },
      { pid: process.pid, started_at: 'x', expires_at: new Date(Date.now() - 1000).toISOString(), user_code: 'OLD' },
      'not json',
    ]) {
      writeFileSync(path, typeof stale === 'string' ? stale : JSON.stringify(stale));
      const taken = acquireDeviceLock(path, { expiresAt: new Date(Date.now() + 60_000) });
      expect(taken.kind).toBe('acquired');
      expect(readDeviceLock(path)?.user_code).toBeNull();
      if (taken.kind === 'acquired') taken.lock.release();
    }
  });

  it('leaves an empty lock only a moment old (its holder is still writing it), and replaces an old empty one', () => {
    writeFileSync(path, '');
    expect(() => acquireDeviceLock(path, { expiresAt: new Date(Date.now() + 60_000) })).toThrow(expect.objectContaining({ code: 'locked' }));
    expect(readFileSync(path, 'utf8')).toBe('');
    const past = new Date(Date.now() - 60_000);
    utimesSync(path, past, past);
    const taken = acquireDeviceLock(path, { expiresAt: new Date(Date.now() + 60_000) });
    expect(taken.kind).toBe('acquired');
    if (taken.kind === 'acquired') taken.lock.release();
  });

  it('release never removes a lock that is no longer ours', () => {
    const first = acquireDeviceLock(path, { expiresAt: new Date(Date.now() + 60_000) });
    if (first.kind === 'held') throw new Error('expected the lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, started_at: 'x', expires_at: new Date(Date.now() + 60_000).toISOString(), nonce: 'other' }));
    first.lock.release();
    expect(existsSync(path)).toBe(true);
  });
});
