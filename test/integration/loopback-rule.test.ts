import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refreshAccessToken } from '../../lib/agentstack/auth/oauth.js';
import { revokeToken } from '../../lib/agentstack/auth/revoke.js';

// A stored endpoint (a refresh record written by an older version) on plain http to loopback is never asked for an
// MCP server on https; for an MCP server on plain http to loopback it is.
let server: Server;
let base: string;
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url === '/revoke' ? 200 : 400, { 'content-type': 'application/json' });
      res.end(req.url === '/revoke' ? '' : JSON.stringify({ error: 'invalid_grant' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const refresh = (mcpUrl: string) => refreshAccessToken({ tokenEndpoint: `${base}/token`, clientId: 'c', refreshToken: 'rt', resource: mcpUrl, mcpUrl, timeoutMs: 3_000 });
const revoke = (mcpUrl: string) => revokeToken({ endpoints: { issuer: base, tokenEndpoint: `${base}/token`, revocationEndpoint: `${base}/revoke` }, client: { clientId: 'c' }, token: 'rt', tokenTypeHint: 'refresh_token', mcpUrl, timeoutMs: 3_000 });

describe('stored endpoints and the MCP URL they belong to', () => {
  it('an https MCP server: no request to plain http on loopback', async () => {
    seen.length = 0;
    await expect(refresh('https://agentstack.tech/mcp')).rejects.toMatchObject({ code: 'unsafe_url' });
    await expect(revoke('https://agentstack.tech/mcp')).rejects.toMatchObject({ code: 'unsafe_url' });
    expect(seen).toEqual([]);
  });

  it('an MCP server on plain http to loopback: both are asked', async () => {
    seen.length = 0;
    await expect(refresh(`${base}/mcp`)).rejects.toMatchObject({ code: 'invalid_grant' });
    await revoke(`${base}/mcp`);
    expect(seen).toEqual(['POST /token', 'POST /revoke']);
  });
});
