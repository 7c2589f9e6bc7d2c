/** Diagnose's rows tell the account's one story: the same rounding, the same step, nothing said of what is not there. */
import { describe, expect, it } from 'vitest';
import { mcpBearerGate, mcpEntryGate, mcpNoToolsGate, nodeGate } from '../../lib/commands/diagnose/gatesConfig.js';
import { refreshFileGate, tokenExpiryGate } from '../../lib/commands/diagnose/gatesState.js';
import { expiryText } from '../../lib/agentstack/state/account.js';
import { RESTORE_STEP } from '../../lib/agentstack/state/story.js';
import type { LocalState } from '../../lib/commands/diagnose/state.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const jwtExp = (expS: number) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ exp: expS })).toString('base64url')}.c2lnbmF0dXJlLXNpZ25hdHVyZQ`;
const refresh = (over: Partial<LocalState['refresh']> = {}): LocalState['refresh'] => ({ exists: true, mode: 0o600, error: null, legacy: false, expiresAt: null, record: null, ...over });
const broken = { path: '/h/mcp.json', exists: true, error: '~/mcp.json is not valid JSON', errorAt: { line: 2, column: 3 }, config: null, mode: 0o600, entry: null, notLean: false } as LocalState['mcp'];

describe('diagnose rows, one story', () => {
  it('token.expiry words the time left as --status does (one rounding)', () => {
    // 3 min 50 s left: --status says "3 min left"; the row must not round it up to 4.
    const exp = NOW + 3 * 60_000 + 50_000;
    const row = tokenExpiryGate({ bearer: jwtExp(exp / 1000), jwtExpMs: exp, refresh: refresh(), now: NOW });
    expect(expiryText(new Date(exp).toISOString(), NOW)).toContain('(3 min left)');
    expect(row.summary).toMatch(/\b3 min\b/);
    const later = NOW + 150 * 60_000 + 40 * 60_000;
    expect(tokenExpiryGate({ bearer: jwtExp(later / 1000), jwtExpMs: later, refresh: refresh(), now: NOW }).summary).toContain('valid for 3 h');
  });

  it('token.expiry with a sign-in waiting says what the account row says: approve the code (a WARN)', () => {
    const exp = NOW - 60_000;
    const story = { state: 'renewal_refused', word: 'renewal refused', truth: 't', next: 'A sign-in is waiting for your approval: open https://x/activate and enter the code ABCD-EFGH (until …).', underway: true } as const;
    const row = tokenExpiryGate({ bearer: jwtExp(exp / 1000), jwtExpMs: exp, refresh: refresh({ exists: false }), now: NOW, derived: { story } });
    expect(row).toMatchObject({ status: 'WARN', fix: story.next });
  });

  it('refresh.file without a token does not speak of a token expiring', () => {
    expect(refreshFileGate(refresh({ exists: false }), '/h/agentstack-refresh', 'linux', undefined, false).summary).not.toContain('when the token expires');
    expect(refreshFileGate(refresh({ exists: false }), '/h/agentstack-refresh', 'linux', undefined, true).summary).toContain('when the token expires');
  });

  it('mcp.no-tools and mcp.bearer: an unreadable mcp.json is not "no agentstack entry"', () => {
    expect(mcpNoToolsGate(broken).summary).not.toContain('no "agentstack" entry');
    expect(mcpBearerGate(broken).summary).not.toContain('no "agentstack" entry');
  });

  it('mcp.entry with the entry removed and a refresh token kept: the restore, not a sign-in', () => {
    const noEntry = { ...broken, error: null, errorAt: null, config: { mcpServers: {} } } as LocalState['mcp'];
    expect(mcpEntryGate(noEntry, 'entry_removed')).toMatchObject({ status: 'WARN', fix: RESTORE_STEP });
  });

  it('the node row names the node a hook would run, also when that Node is past its end of life', () => {
    const row = nodeGate('20.11.0', { path: '/usr/bin/node', version: '20.11.0' }, Date.parse('2026-11-30T12:00:00Z'));
    expect(row).toMatchObject({ status: 'WARN', summary: expect.stringContaining('hooks run /usr/bin/node (Node 20.11.0)') });
  });
});
