/**
 * MCP over Streamable HTTP: one SDK `Server` + transport per session, on plain node:http. Response streams are
 * resumable (an event store per session): a client whose stream closes early resumes with GET + Last-Event-ID.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isExecuteTool } from '../lib/agentstack/server/toolNames.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { VerifiedCaller } from './auth.js';
import { SessionEventStore } from './eventStore.js';
import { HttpError, readJson, sendJson } from './http.js';
import { executeSteps, type Step } from './registry.js';
import type { CoreState } from './state.js';
import { HELP_TOOL, iconsFor, toolsListPage } from './tools.js';

const MCP_BODY_LIMIT = 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  expired: boolean;
}

function toolError(message: string) {
  const structuredContent = { ok: false, error: { code: 'invalid_arguments', message } };
  return { content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }], structuredContent, isError: true };
}

function parseSteps(args: Record<string, unknown> | undefined): { steps: Step[]; options: Record<string, unknown> } | string {
  const steps = args?.steps;
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > 50) return 'steps must be an array of 1 to 50 steps';
  for (const s of steps) {
    if (!s || typeof s !== 'object' || typeof s.id !== 'string' || typeof s.action !== 'string') return 'each step needs a string id and action';
    if (s.params !== undefined && (typeof s.params !== 'object' || s.params === null || Array.isArray(s.params))) return 'step params must be an object';
  }
  const options = args?.options ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return 'options must be an object';
  return { steps: steps as Step[], options: options as Record<string, unknown> };
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions opened so far (for the `initializeLimit` fault). */
  private opened = 0;
  constructor(private readonly state: CoreState) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The `expireSessions` fault: every known session answers its next request with 404, once, then is gone. */
  expireAll(): void {
    for (const s of this.sessions.values()) s.expired = true;
  }

  /**
   * `expireSessions` given to startCore (no session exists yet): the first request after a session's handshake
   * (not `notifications/initialized`) finds it expired, once. Lets a spawned client meet an expiry mid-run.
   */
  expireNextAfterHandshake = false;

  private takeArmedExpiry(body: unknown): boolean {
    const request = body && typeof body === 'object' && 'id' in body && 'method' in body;
    if (!this.expireNextAfterHandshake || !request || isInitializeRequest(body)) return false;
    this.expireNextAfterHandshake = false;
    return true;
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }

  /** Whether this tools/call closes its stream early (the `closeCallStream` fault), counting down a number. */
  private takeCloseCallStream(): boolean {
    const faults = this.state.faults;
    if (faults.closeCallStream === true) return true;
    if (typeof faults.closeCallStream !== 'number' || faults.closeCallStream <= 0) return false;
    faults.closeCallStream -= 1;
    return true;
  }

  private createServer(): Server {
    const state = this.state;
    const icons = iconsFor(state);
    const server = new Server(
      { name: 'agentstack', title: 'AgentStack', version: '0.5.0', websiteUrl: state.baseUrl, ...(icons ? { icons } : {}) },
      { capabilities: { tools: { listChanged: false } }, instructions: 'Use agentstack.execute; the action catalog is at /mcp/actions.' },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (request) => toolsListPage(state, request.params?.cursor));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const caller = extra.authInfo?.extra?.caller as VerifiedCaller | undefined;
      if (!caller) throw new McpError(ErrorCode.InvalidRequest, 'not authenticated');
      const { name, arguments: args } = request.params;
      if (name === HELP_TOOL && state.faults.secondTool) {
        return { content: [{ type: 'text' as const, text: `Call agentstack.execute with {steps:[{id, action, params}]}. Catalog: ${state.baseUrl}/mcp/actions` }] };
      }
      if (!isExecuteTool(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      if (extra.closeSSEStream && this.takeCloseCallStream()) {
        extra.closeSSEStream();
        await new Promise((resolve) => setTimeout(resolve, 50)); // the result is stored while the client is away
      }
      const parsed = parseSteps(args);
      if (typeof parsed === 'string') return toolError(parsed);
      const outcome = executeSteps(parsed.steps, parsed.options, caller, state.store);
      const structuredContent = { ...outcome, dry_run: parsed.options.dry_run === true };
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }],
        structuredContent,
        ...(outcome.ok ? {} : { isError: true }),
      };
    });
    return server;
  }

  private notFound(res: ServerResponse, body: unknown): void {
    const id = body && typeof body === 'object' && 'id' in body ? (body as { id: unknown }).id : null;
    const { sessionNotFoundCode: code, sessionNotFoundStatus: status } = this.state.faults;
    const answer = status ?? (code === null ? 404 : 200);
    sendJson(res, answer, { jsonrpc: '2.0', id: answer === 200 ? id ?? null : null, error: { code: code ?? -32001, message: 'Session not found' } });
  }

  async handle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, caller: VerifiedCaller, token: string): Promise<void> {
    req.auth = { token, clientId: String(caller.payload.client_id ?? ''), scopes: caller.caps ?? [], extra: { caller } };
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJson(req, MCP_BODY_LIMIT);
      } catch (err) {
        if (err instanceof HttpError && err.status === 400) {
          sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
          return;
        }
        throw err;
      }
    } else if (req.method !== 'GET' && req.method !== 'DELETE') {
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = this.sessions.get(sid);
      if (!session) return this.notFound(res, body);
      if (session.expired || this.takeArmedExpiry(body)) {
        this.sessions.delete(sid);
        void session.transport.close();
        return this.notFound(res, body);
      }
      if (this.state.faults.dropCallStream && (body as { method?: unknown } | undefined)?.method === 'tools/call') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).end();
        return;
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const limit = this.state.faults.initializeLimit;
      if (limit !== null && this.opened >= limit) {
        sendJson(res, 503, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Too many open sessions' } });
        return;
      }
      this.opened += 1;
      const server = this.createServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new SessionEventStore(),
        ...(this.state.faults.sseRetryMs !== null ? { retryInterval: this.state.faults.sseRetryMs } : {}),
        onsessioninitialized: (id) => {
          this.sessions.set(id, { transport, server, expired: false });
        },
        onsessionclosed: (id) => {
          this.sessions.delete(id);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) this.sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: no valid session; send initialize first' } });
  }
}
