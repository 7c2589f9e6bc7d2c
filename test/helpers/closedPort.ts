import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port that refuses connections: one the system hands out, bound and closed again. Fixed low ports
 * (1, 9) are not safe to assume closed: something may listen there on another machine.
 */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
