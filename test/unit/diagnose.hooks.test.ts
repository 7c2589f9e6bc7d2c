import { describe, expect, it } from 'vitest';
import { callsSinceSignInGate, hooksRanGate, signInKindGate } from '../../lib/commands/diagnose/gatesHooks.js';
import { noCallSince } from '../../lib/agentstack/plugin/cursorUi.js';
import type { McpState, PluginState } from '../../lib/commands/diagnose/state.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const run = (agoMs: number, more: Record<string, unknown> = {}) => ({ at: new Date(NOW - agoMs).toISOString(), cursor_version: '3.20.17', composer_mode: 'agent', plugin_version: '0.5.0', outcome: 'answered', unknown_form: null, ...more });
const plugin: PluginState = { install: { kind: 'local', dir: '/c/plugins/local/agentstack' }, installs: 1, manifestPointer: './mcp.json', shippedProblems: [] };
const mcp = (entry: Record<string, unknown> | null): McpState => ({ path: '/c/mcp.json', exists: true, error: null, config: {}, mode: 0o600, entry, notLean: false });

describe('hooks.ran', () => {
  it('names when each hook last ran, with the Cursor version', () => {
    const check = hooksRanGate({ 'session-start': run(180_000), 'pre-mcp': run(10_000, { outcome: 'neutral' }) }, NOW);
    expect(check.status).toBe('PASS');
    expect(check.summary).toBe('session-start last ran 3 min ago (Cursor 3.20.17), answered; pre-MCP 10 s ago, neutral');
  });

  it('no run at all: WARN with where to look (Settings > Hooks, the output channels, the version, enterprise imports)', () => {
    const check = hooksRanGate({}, NOW);
    expect(check.status).toBe('WARN');
    expect(check.summary).toBe('no hook of this plugin has run on this machine');
    expect(check.fix).toMatch(/Customize > Hooks \(Cursor Settings > Hooks before Cursor 3\.18\)/);
    expect(check.fix).toMatch(/"Hooks" and "MCP Logs" output channels/);
    expect(check.fix).toMatch(/3\.13/);
    expect(check.fix).toMatch(/enterprise/);
  });

  it('only the pre-MCP hook ran: WARN (session start did not run)', () => {
    const check = hooksRanGate({ 'pre-mcp': run(5_000, { outcome: 'ask' }) }, NOW);
    expect(check.status).toBe('WARN');
    expect(check.summary).toContain('session-start has not run');
    expect(check.summary).toContain('pre-MCP 5 s ago, ask (Cursor 3.20.17)');
  });
});

describe('hooks.ran and calls named in an unknown form', () => {
  it('WARNs, naming what the hook could not name, when the last pre-MCP input was in a form it does not know', () => {
    const check = hooksRanGate({ 'session-start': run(60_000), 'pre-mcp': run(5_000, { outcome: 'ask', unknown_form: 'tool agentstack.run' }) }, NOW);
    expect(check.status).toBe('WARN');
    expect(check.summary).toContain('named in a form the plugin does not know (tool agentstack.run)');
    expect(check.fix).toMatch(/Update the plugin/);
  });

  it('PASSes again once a later call is named in a known form', () => {
    expect(hooksRanGate({ 'session-start': run(60_000), 'pre-mcp': run(5_000, { outcome: 'deny' }) }, NOW).status).toBe('PASS');
  });
});

describe('sign-in.kind', () => {
  it('says which of Connect and Device Code is set up, and that both show when both are', () => {
    const signed = { url: 'https://agentstack.tech/mcp', headers: { Authorization: 'Bearer abc.def.ghi' } };
    const both = signInKindGate({ plugin, mcp: mcp(signed) });
    expect(both.summary).toMatch(/^both: Device Code: user-agentstack .*signed in; Connect: plugin-agentstack-agentstack/);
    expect(both.summary).toContain('turn one off in Customize > MCPs');
    expect(signInKindGate({ plugin, mcp: mcp(null) }).summary).toMatch(/^Connect: .*no Device Code entry/);
    expect(signInKindGate({ plugin: { ...plugin, install: null }, mcp: mcp({ url: 'https://agentstack.tech/mcp' }) }).summary).toMatch(/^Device Code: .*no credential; no installed plugin/);
    expect(signInKindGate({ plugin: { ...plugin, install: null }, mcp: mcp(null) }).status).toBe('WARN');
  });
});

describe('cursor.calls: what Cursor may need after a sign-in', () => {
  const derived = (noCall: boolean, state: 'signed_in' | 'never_signed_in' = 'signed_in') => ({ account: { state, expiresAt: null, apiKey: false }, noCallSinceSignIn: noCall }) as never;
  it('WARNs with the enable and approve step when no AgentStack call reached the hook since the token was issued', () => {
    const check = callsSinceSignInGate({ derived: derived(true), hookRuns: {} });
    expect(check.status).toBe('WARN');
    expect(check.fix).toBe('If user-agentstack is off in Customize > MCPs (Cursor Settings > MCP before Cursor 3.18), turn it on (Cursor CLI: agent mcp enable agentstack), and approve it if Cursor asks.');
  });
  it('PASSes once a call went through, and says nothing when not signed in', () => {
    expect(callsSinceSignInGate({ derived: derived(false), hookRuns: { 'pre-mcp': run(5_000) } }).status).toBe('PASS');
    expect(callsSinceSignInGate({ derived: derived(true, 'never_signed_in'), hookRuns: {} }).summary).toMatch(/^not checked/);
  });
  it('noCallSince: no record, or one older than the token, is no call since', () => {
    expect(noCallSince(NOW, null)).toBe(true);
    expect(noCallSince(NOW, new Date(NOW - 1).toISOString())).toBe(true);
    expect(noCallSince(NOW, new Date(NOW + 1).toISOString())).toBe(false);
    expect(noCallSince(null, null)).toBe(false);
  });
});
