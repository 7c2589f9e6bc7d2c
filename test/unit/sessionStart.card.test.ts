import { describe, expect, it } from 'vitest';
import { renderCard, type CardInput } from '../../lib/commands/sessionStart/card.js';
import type { Account } from '../../lib/agentstack/state/account.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const signedIn: Account = { state: 'signed_in', expiresAt: iso(NOW + 30 * 60_000), apiKey: false };
const input = (over: Partial<CardInput> = {}): CardInput => ({
  serverUrl: 'https://agentstack.tech/mcp', account: signedIn, who: 'dev@agentstack.test', project: { id: 42, reason: 'pinned', source: 'file', nextSignIn: null },
  capabilities: { count: 12 }, pluginRoot: '/p', notes: [], todo: [], now: NOW, ...over,
});
const lines = (over: Partial<CardInput> = {}) => renderCard(input(over)).split('\n');
const account = (over: Partial<Account>): Account => ({ ...signedIn, ...over });

describe('the session-start status card', () => {
  it('signed in: server, account, project, token expiry, snapshot, plugin root; no action section', () => {
    expect(lines()).toEqual([
      'AgentStack plugin status (server https://agentstack.tech/mcp)',
      '- Account: signed in as dev@agentstack.test',
      '- Project: 42 (pinned)',
      '- Token: valid until 2026-12-01T10:30:00Z (30 min left)',
      '- Capabilities: 12 actions in the snapshot',
      '- Plugin root: /p (sign in: node /p/hooks/scripts/device-code.mjs; diagnose: node /p/scripts/diagnose-local.mjs)',
    ]);
  });
  it('hours once two hours or more are left; a past time is never "valid until"', () => {
    expect(lines({ account: account({ expiresAt: iso(NOW + 5 * 3600_000) }) })[3]).toBe('- Token: valid until 2026-12-01T15:00:00Z (5 h left)');
    expect(lines({ account: account({ state: 'expired', expiresAt: iso(NOW - 60_000) }) })[3]).toBe('- Token: expired at 2026-12-01T09:59:00Z');
    expect(lines({ account: account({ state: 'expired', expiresAt: iso(NOW - 20_000) }) })[3]).toBe('- Token: expired at 2026-12-01T09:59:40Z');
    expect(lines({ account: account({ expiresAt: iso(NOW + 20_000) }) })[3]).toBe('- Token: valid until 2026-12-01T10:00:20Z (less than a minute left)');
  });
  it('each account state in its one wording; no token line where there is no token', () => {
    expect(lines({ account: account({ state: 'never_signed_in', expiresAt: null }), who: null })[1]).toBe('- Account: not signed in');
    expect(lines({ account: account({ state: 'signed_out', expiresAt: null }), who: null })[1]).toBe('- Account: signed out');
    expect(lines({ account: account({ state: 'placeholder', expiresAt: null }), who: null })[1]).toBe('- Account: not signed in (a placeholder in mcp.json)');
    expect(lines({ account: account({ state: 'expired' }), who: null })[1]).toBe('- Account: token expired');
    expect(renderCard(input({ account: account({ state: 'never_signed_in', expiresAt: null }) }))).not.toContain('- Token:');
  });
  it('an API key: named, and no token expiry', () => {
    expect(lines({ account: { state: 'signed_in', expiresAt: null, apiKey: true }, who: null })[1]).toBe('- Account: signed in (API key)');
    expect(renderCard(input({ account: { state: 'signed_in', expiresAt: null, apiKey: true } }))).not.toContain('- Token:');
  });
  it("no project pinned: the account's default, by number when the token names it; no snapshot", () => {
    expect(lines({ project: { id: null, reason: 'account_default', source: null, nextSignIn: null } })[2]).toBe("- Project: your account's default");
    expect(lines({ project: { id: 7, reason: 'account_default', source: null, nextSignIn: null } })[2]).toBe("- Project: 7 (your account's default)");
    expect(lines({ capabilities: { count: null } })[4]).toBe('- Capabilities: no snapshot yet');
  });
  it('notes follow the facts; the to-do list comes last under "Action needed:", in order', () => {
    const out = lines({ notes: ['Refreshed the access token.'], todo: ['first', 'second'] });
    expect(out.slice(-4)).toEqual(['- Refreshed the access token.', 'Action needed:', '- first', '- second']);
  });
});
