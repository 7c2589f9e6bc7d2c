/**
 * A small local forward proxy on 127.0.0.1 for the proxy tests: plain-HTTP forwarding (absolute-form request lines,
 * what a client sends through HTTP_PROXY) and HTTP CONNECT tunnels (what a client sends through HTTPS_PROXY for an
 * https:// URL). It records every request so a test can say exactly what went through it.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyRecord {
  method: string;
  /** The absolute URL (forwarding) or `host:port` (CONNECT). */
  target: string;
  /** Whether an Authorization header passed through the proxy (forwarding only; CONNECT carries no headers of the target). */
  hadAuthorization: boolean;
}

export interface TestProxy {
  url: string;
  port: number;
  records: ProxyRecord[];
  /**
   * The HTTP request lines (`GET /path HTTP/1.1`) clients sent inside CONNECT tunnels to plain-HTTP targets, read
   * from the tunneled bytes: one per request made through the proxy, however many requests share a connection (a
   * request may follow the previous one's body on the same line, so the lines are not anchored).
   */
  tunneledRequests(): string[];
  close(): Promise<void>;
}

/**
 * `allowConnect: false` refuses every tunnel with 502. Note that undici's ProxyAgent tunnels plain http:// targets
 * through CONNECT too (its `proxyTunnel` default), so HTTP_PROXY tests see one CONNECT per connection, not one
 * absolute-form request per request.
 */
export async function startProxy(options: { allowConnect?: boolean } = {}): Promise<TestProxy> {
  const records: ProxyRecord[] = [];
  const transcripts: Array<{ text: string }> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    records.push({ method: req.method ?? 'GET', target: req.url ?? '', hadAuthorization: Boolean(req.headers.authorization) });
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('proxy: absolute URL expected');
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port || 80, path: `${target.pathname}${target.search}`, method: req.method, headers: req.headers },
      (up: IncomingMessage) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(upstream);
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    records.push({ method: 'CONNECT', target: req.url ?? '', hadAuthorization: false });
    if (options.allowConnect === false) {
      client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const transcript = { text: head.toString('latin1') };
    transcripts.push(transcript);
    client.on('data', (chunk: Buffer) => { transcript.text += chunk.toString('latin1'); });
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    records,
    tunneledRequests: () => transcripts.flatMap((t) => t.text.match(/(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \/\S* HTTP\/1\.[01](?=\r\n)/g) ?? []),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
