import { describe, expect, it } from 'vitest';
import { renderCard, type CardInput } from '../../lib/commands/sessionStart/card.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const input = (over: Partial<CardInput> = {}): CardInput => ({
  serverUrl: 'https://agentstack.tech/mcp', state: 'ok', apiKey: false, who: 'dev@agentstack.test', project: '42',
  expiresAtMs: NOW + 30 * 60_000, capabilities: { count: 12 }, pluginRoot: '/p', notes: [], todo: [], now: NOW, ...over,
});
const lines = (over: Partial<CardInput> = {}) => renderCard(input(over)).split('\n');

describe('the session-start status card', () => {
  it('signed in: server, account, project, token expiry, snapshot, plugin root; no action section', () => {
    expect(lines()).toEqual([
      'AgentStack plugin status (server https://agentstack.tech/mcp)',
      '- Account: signed in as dev@agentstack.test',
      '- Project: 42',
      '- Token: valid until 2026-12-01T10:30:00Z (30 min left)',
      '- Capabilities: 12 actions in the snapshot',
      '- Plugin root: /p (sign in: node "/p/hooks/scripts/device-code.mjs"; diagnose: node "/p/scripts/diagnose-local.mjs")',
    ]);
  });
  it('hours once two hours or more are left; an expired token says when it expired', () => {
    expect(lines({ expiresAtMs: NOW + 5 * 3600_000 })[3]).toBe('- Token: valid until 2026-12-01T15:00:00Z (5 h left)');
    expect(lines({ state: 'expired', expiresAtMs: NOW - 60_000 })[3]).toBe('- Token: expired at 2026-12-01T09:59:00Z');
    expect(lines({ expiresAtMs: null })[3]).toBe('- Token: no expiry known');
  });
  it('each credential state in words; no token line where there is no token', () => {
    expect(lines({ state: 'unsigned', who: null })[1]).toBe('- Account: not signed in');
    expect(lines({ state: 'placeholder' })[1]).toBe('- Account: not signed in (placeholder credential in mcp.json)');
    expect(lines({ state: 'expired' })[1]).toBe('- Account: credential expired');
    expect(lines({ state: 'null_caps' })[1]).toBe('- Account: signed in with a key that grants no capabilities');
    expect(renderCard(input({ state: 'unsigned' }))).not.toContain('- Token:');
    expect(renderCard(input({ state: 'placeholder' }))).not.toContain('- Token:');
  });
  it('an API key: named, and no token expiry', () => {
    expect(lines({ apiKey: true, who: null })[1]).toBe('- Account: signed in (API key)');
    expect(renderCard(input({ apiKey: true }))).not.toContain('- Token:');
  });
  it('no project pinned, no snapshot', () => {
    expect(lines({ project: null })[2]).toBe('- Project: none pinned');
    expect(lines({ capabilities: { count: null } })[4]).toBe('- Capabilities: no snapshot yet');
  });
  it('notes follow the facts; the to-do list comes last under "Action needed:", in order', () => {
    const out = lines({ notes: ['Refreshed the access token.'], todo: ['first', 'second'] });
    expect(out.slice(-4)).toEqual(['- Refreshed the access token.', 'Action needed:', '- first', '- second']);
  });
});
