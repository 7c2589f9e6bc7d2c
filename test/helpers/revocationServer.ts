/**
 * A small OAuth server of the test's own on 127.0.0.1 (port 0), for what the reference core does not do: RFC 8414
 * metadata naming any revocation endpoint (another origin, or none), and an RFC 7009 endpoint that accepts access
 * tokens too. It records every revocation request (the token, its hint, the client id and secret).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One revocation request; the client's id and secret as sent, by HTTP Basic (`basic`) or in the body. */
export interface Revocation { token: string; hint: string | null; clientId: string | null; clientSecret: string | null; basic: boolean }

export interface RevocationServer {
  readonly baseUrl: string;
  readonly revoked: Revocation[];
  /** Every request's method and path. */
  readonly requests: string[];
  /** The revocation endpoint the metadata names (`<base>/revoke` until set; null: none). */
  revocationEndpoint: string | null;
  /** The OAuth error access tokens are refused with (unsupported_token_type: a server with JWT access tokens); null: accepted. */
  accessTokenError: string | null;
  /** The raw answer to an access token's revocation (status, content type, body), when set; wins over accessTokenError. */
  accessTokenReply: { status: number; contentType: string; body: string } | null;
  /** Close the connection of every revocation request without an answer. */
  resetRevocation: boolean;
  close(): Promise<void>;
}

export async function startRevocationServer(): Promise<RevocationServer> {
  const revoked: Revocation[] = [];
  const requests: string[] = [];
  let baseUrl = '';
  const state = {
    revocationEndpoint: undefined as string | null | undefined, accessTokenError: null as string | null, resetRevocation: false,
    accessTokenReply: null as RevocationServer['accessTokenReply'],
  };
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && (req.url === '/.well-known/oauth-authorization-server' || req.url === '/.well-known/openid-configuration')) {
      const revocation = state.revocationEndpoint === undefined ? `${baseUrl}/revoke` : state.revocationEndpoint;
      return json(200, {
        issuer: baseUrl, token_endpoint: `${baseUrl}/token`, device_authorization_endpoint: `${baseUrl}/device`,
        ...(revocation ? { revocation_endpoint: revocation } : {}),
      });
    }
    if (req.method === 'POST' && req.url === '/revoke' && state.resetRevocation) {
      req.socket.destroy();
      return;
    }
    if (req.method === 'POST' && req.url === '/revoke') {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => { body += d; }).on('end', () => {
        const form = new URLSearchParams(body);
        const hint = form.get('token_type_hint');
        const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
        const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
        revoked.push({ token: form.get('token') ?? '', hint, clientId: basicId ?? form.get('client_id'), clientSecret: basicSecret ?? form.get('client_secret'), basic: Boolean(basic) });
        const reply = state.accessTokenReply;
        if (hint === 'access_token' && reply) return res.writeHead(reply.status, { 'content-type': reply.contentType }).end(reply.body);
        if (hint === 'access_token' && state.accessTokenError) return json(400, { error: state.accessTokenError });
        res.writeHead(200).end();
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    revoked,
    requests,
    get revocationEndpoint() { return state.revocationEndpoint === undefined ? `${baseUrl}/revoke` : state.revocationEndpoint; },
    set revocationEndpoint(value) { state.revocationEndpoint = value; },
    get accessTokenError() { return state.accessTokenError; },
    set accessTokenError(value) { state.accessTokenError = value; },
    get accessTokenReply() { return state.accessTokenReply; },
    set accessTokenReply(value) { state.accessTokenReply = value; },
    get resetRevocation() { return state.resetRevocation; },
    set resetRevocation(value) { state.resetRevocation = value; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
