import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../lib/agentstack/mcpJson/withoutCredentials.js';
import { signedOutLines } from '../../lib/commands/deviceCode/logout.js';
import type { SignOutResult } from '../../lib/agentstack/signIn/signOut.js';

describe('withoutCredentials: the mcp.json side of signing out', () => {
  it('drops Authorization and X-API-Key (any case), keeps type, url, the project header, other keys and their order', () => {
    const config = { a: 1, mcpServers: { x: { url: 'https://x/mcp', headers: { Authorization: 'Bearer other' } }, agentstack: { type: 'http', url: 'https://agentstack.tech/mcp', headers: { authorization: 'Bearer t', 'X-Project-ID': '42', 'x-api-key': 'k' }, tools: ['t'] }, z: {} } };
    const { config: out, changed } = withoutCredentials(config);
    expect(changed).toBe(true);
    expect(JSON.stringify(out)).toBe(JSON.stringify({ a: 1, mcpServers: { x: config.mcpServers.x, agentstack: { type: 'http', url: 'https://agentstack.tech/mcp', headers: { 'X-Project-ID': '42' }, tools: ['t'] }, z: {} } }));
    expect(config.mcpServers.agentstack.headers.authorization).toBe('Bearer t');
  });
  it('drops an emptied headers object; changes nothing when there is no credential or no entry', () => {
    expect(withoutCredentials({ mcpServers: { agentstack: { url: 'u', headers: { Authorization: 'Bearer t' } } } }).config).toEqual({ mcpServers: { agentstack: { url: 'u' } } });
    for (const config of [{}, { mcpServers: { agentstack: { url: 'u' } } }, { mcpServers: { agentstack: { url: 'u', headers: { 'X-Project-ID': '5' } } } }, { mcpServers: [] }, { mcpServers: { agentstack: 'x' } }]) {
      expect(withoutCredentials(config as Record<string, unknown>)).toEqual({ config, changed: false });
    }
  });
});

const base: SignOutResult = {
  server_url: 'https://agentstack.tech/mcp', was_signed_in: true, revoked: true, access_token_revoked: false, reason: null, message: null,
  access_token_expires_at: '2026-12-01T04:00:00.000Z', revoke_at: 'https://agentstack.tech', client_id: 'cursor-plugin', revocation_endpoint: 'https://agentstack.tech/api/oauth2/revoke', mcp_json: '/h/.cursor/mcp.json', warnings: [], refresh_kept_in: null,
};

describe('what --logout says', () => {
  it('revoked: gh-style line naming the server and how long the last access token lives', () => {
    const before = { now: Date.parse('2026-12-01T03:00:00Z') };
    expect(signedOutLines(base, before)[0]).toBe('✓ Signed out of AgentStack (server https://agentstack.tech/mcp); the refresh token was revoked. The last access token stays valid until 2026-12-01T04:00:00Z unless the server checks revocation.');
    // After that time, nothing "stays valid": the line says only what was revoked; the pin is named only when there is one.
    const after = signedOutLines(base, { now: Date.parse('2026-12-01T05:00:00Z') });
    expect(after[0]).toBe('✓ Signed out of AgentStack (server https://agentstack.tech/mcp); the refresh token was revoked.');
    expect(after.join('\n')).not.toMatch(/valid until|project pin/);
    expect(signedOutLines(base, { ...before, pinned: true }).at(-1)).toContain('the project pin stays');
    expect(signedOutLines({ ...base, access_token_revoked: true, access_token_expires_at: null })[0]).toBe('✓ Signed out of AgentStack (server https://agentstack.tech/mcp); the refresh and access tokens were revoked.');
  });
  it('names the endpoint that revoked, and none when nothing was sent', () => {
    expect(signedOutLines(base)[1]).toBe('  Revoked at https://agentstack.tech/api/oauth2/revoke (RFC 7009).');
    expect(signedOutLines({ ...base, revoked: false, revocation_endpoint: null, reason: 'no_revocation_endpoint', message: 'x' }).join('\n')).not.toContain('Revoked at');
  });
  it('not revoked: says so plainly and where to revoke', () => {
    const lines = signedOutLines({ ...base, revoked: false, reason: 'no_revocation_endpoint', message: 'the server names no revocation endpoint in its OAuth metadata' });
    expect(lines[0]).toContain('Signed out of AgentStack on this machine');
    expect(lines[1]).toContain('could not be revoked at the server (the server names no revocation endpoint in its OAuth metadata)');
    expect(lines[1]).toContain('at https://agentstack.tech');
  });
  it('a refresh token its keychain kept (a locked keyring): one true statement, never "no copy is left"', () => {
    const warning = 'The refresh token in the Secret Service could not be removed (the keyring is locked); remove the "AgentStack refresh token (Cursor plugin)" entry by hand.';
    const lines = signedOutLines({ ...base, revoked: false, reason: 'no_revocation_endpoint', message: 'no endpoint', warnings: [warning], refresh_kept_in: 'Secret Service' });
    expect(lines.join('\n')).not.toContain('no copy of the tokens is left');
    expect(lines[0]).toContain('except for the refresh token in the Secret Service: its entry could not be removed');
    const revoked = signedOutLines({ ...base, warnings: [warning], refresh_kept_in: 'Secret Service' });
    expect(revoked[0]).toContain('Its copy in the Secret Service could not be removed');
  });
  it('not signed in: one line', () => {
    expect(signedOutLines({ ...base, was_signed_in: false, revoked: false, reason: 'not_signed_in' })).toEqual(['You were not signed in to AgentStack (server https://agentstack.tech/mcp); nothing to sign out.']);
  });
});
