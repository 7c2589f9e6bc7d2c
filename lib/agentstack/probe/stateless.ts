/**
 * The 2026-07-28 leg of the probe: a server that speaks only that revision has no `initialize` and no session;
 * the SDK v2 client with `versionNegotiation: {mode: 'auto'}` probes it with `server/discover` and then sends
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` on every POST. It bundles with esbuild into the single .mjs
 * (imported statically, see session.ts for why).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { quoteShort } from '../../platform/errors.js';
import { PROBE_CLIENT, sdkTimeoutMs, sendOnce, type ConnectOptions, type McpConnection } from './session.js';
import { LooseResultSchema } from './toolsList.js';

export async function connectModern(options: ConnectOptions): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
    requestInit: { headers: options.headers },
    fetch: options.fetch,
  });
  const client = new Client(PROBE_CLIENT, { capabilities: {}, versionNegotiation: { mode: 'auto', probe: { timeoutMs: sdkTimeoutMs(options.timeoutMs) } } });
  client.onerror = () => {};
  try {
    await client.connect(transport, { timeout: sdkTimeoutMs(options.timeoutMs) });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  const serverInfo = client.getServerVersion() as Record<string, unknown> | undefined;
  return {
    era,
    ...(client.getNegotiatedProtocolVersion() ? { protocolVersion: client.getNegotiatedProtocolVersion() } : {}),
    ...(serverInfo ? { serverInfo } : {}),
    request: async (method, params) =>
      (await sendOnce(options, (o) => client.request({ method, ...(params ? { params } : {}) } as never, LooseResultSchema, o))) as Record<string, unknown>,
    close: async () => {
      try {
        await client.close();
        return { terminated: true };
      } catch (error) {
        return { terminated: false, error: quoteShort((error as Error)?.message ?? String(error), 160) };
      }
    },
  };
}
