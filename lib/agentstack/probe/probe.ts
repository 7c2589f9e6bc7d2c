/**
 * The MCP surface probe: connects to an MCP endpoint the way Cursor does (official SDK client over Streamable
 * HTTP), walks tools/list, calls the execute tool under both names (only where it is listed: see callPolicy.ts),
 * ends the session, and turns what it saw into PASS / WARN / FAIL checks plus the recorded exchanges. It never throws and never prints: callers render the report.
 *
 * Import it statically (see probe/session.ts for the esbuild + zod reason).
 */
import { isSafeWebUrl } from '../server/baseUrl.js';
import { isPluginError } from '../../platform/errors.js';
import { boundedFetch, DEFAULT_TIMEOUT_MS } from '../../platform/net/http.js';
import { fail, type Check } from '../../platform/report.js';
import {
  actionsUrlCheck, authFailureCheck, callCheck, callSkippedCheck, initializeCheck, resumeCheck, serverIconsCheck, sessionCheck, singleToolCheck, terminateCheck,
  toolIconsCheck, toolNameDotCheck, toolsListCheck, type CallOutcome,
} from './checks.js';
import { toolsToCall } from './callPolicy.js';
import { describeError, describeWithBearer, httpStatusOf, plainTextReason } from './describeError.js';
import { recordingFetch } from './recordingFetch.js';
import { connectLegacy, type ConnectOptions, type McpConnection } from './session.js';
import { connectModern } from './stateless.js';
import { DEFAULT_MAX_PAGES, walkToolsList } from './toolsList.js';
import type { Exchange, ProbeOptions, ProbeReport, ToolsWalk } from './types.js';

export type { Exchange, ProbeEvent, ProbeOptions, ProbeReport } from './types.js';

/** The ping every probe call runs: harmless, needs no capability. */
export const PING_ARGUMENTS = { steps: [{ id: 'ping', action: 'system.ping' }], options: { stopOnError: true } } as const;

function initializeFailure(error: unknown, options: ConnectOptions & { bearer?: string }): Check | null {
  const hadBearer = Boolean(options.bearer);
  const auth = authFailureCheck(httpStatusOf(error), hadBearer, options.mcpUrl, 'mcp.initialize', plainTextReason(error, [options.bearer]));
  if (auth) return auth;
  if (isPluginError(error, 'network') || isPluginError(error, 'timeout') || isPluginError(error, 'invalid_response')) {
    return fail('mcp.initialize', describeError(error), 'check the URL, your network and proxy (HTTPS_PROXY / NO_PROXY)');
  }
  return null;
}

async function connect(options: ConnectOptions & { bearer?: string }): Promise<McpConnection | Check> {
  let legacyError: unknown;
  try {
    return await connectLegacy(options);
  } catch (error) {
    legacyError = error;
  }
  const decisive = initializeFailure(legacyError, options);
  if (decisive) return decisive;
  // initialize was refused for another reason: maybe a server that speaks only the 2026-07-28 revision.
  try {
    return await connectModern(options);
  } catch (modernError) {
    return initializeFailure(modernError, options) ??
      fail('mcp.initialize', `initialize failed (${describeError(legacyError)}) and server/discover failed too (${describeError(modernError)})`,
        `check that ${options.mcpUrl} is an MCP Streamable HTTP endpoint`);
  }
}

async function callTool(connection: McpConnection, name: string, hadBearer: boolean): Promise<CallOutcome> {
  const start = performance.now();
  try {
    const result = await connection.request('tools/call', { name, arguments: PING_ARGUMENTS }, `tools/call ${name}`);
    return { kind: 'ok', result, ms: performance.now() - start };
  } catch (error) {
    return { kind: 'failed', error: describeWithBearer(error, hadBearer), ms: performance.now() - start };
  }
}

function firstExchange(exchanges: readonly Exchange[], rpcMethod: string): Exchange | undefined {
  return exchanges.find((x) => x.rpcMethod === rpcMethod && x.status !== undefined && x.status < 300);
}

/** The server refused the probe's Bearer: an exchange that carried it got 401 with `error="invalid_token"`. Pure. */
export function bearerRefused(report: Pick<ProbeReport, 'exchanges'>): boolean {
  return report.exchanges.some((x) => x.sent.authorization && x.status === 401 && x.bearerError === 'invalid_token');
}

export async function probeMcpSurface(options: ProbeOptions): Promise<ProbeReport> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const recorder = recordingFetch(options.fetch ?? boundedFetch({ timeoutMs, streamEventStreams: true }));
  const report: ProbeReport = { mcpUrl: options.mcpUrl, checks: [], exchanges: recorder.exchanges, events: [], durationMs: 0 };
  const finish = () => {
    report.durationMs = Math.round(performance.now() - started);
    return report;
  };
  if (!isSafeWebUrl(options.mcpUrl)) {
    report.checks.push(fail('mcp.initialize', `${options.mcpUrl} is not https (or http to loopback); the probe will not send a Bearer there`, 'use the https URL of the MCP endpoint'));
    return finish();
  }
  const connectOptions: ConnectOptions = {
    mcpUrl: options.mcpUrl,
    headers: options.bearer ? { authorization: `Bearer ${options.bearer}` } : {},
    fetch: recorder.fetch,
    timeoutMs,
    events: report.events,
    closedEarly: recorder.closedEarly,
  };
  const connected = await connect({ ...connectOptions, ...(options.bearer ? { bearer: options.bearer } : {}) });
  if (!('request' in connected)) {
    report.checks.push(connected);
    return finish();
  }
  const connection = connected;
  report.era = connection.era;
  if (connection.protocolVersion) report.protocolVersion = connection.protocolVersion;
  if (connection.serverInfo) report.serverInfo = { name: String(connection.serverInfo.name ?? ''), version: String(connection.serverInfo.version ?? '') };
  const hello = firstExchange(recorder.exchanges, connection.era === 'modern' ? 'server/discover' : 'initialize');
  report.checks.push(initializeCheck(connection, hello?.durationMs), serverIconsCheck(connection.serverInfo));

  let walk: ToolsWalk | undefined;
  try {
    walk = await walkToolsList(
      (cursor, page) => connection.request('tools/list', cursor === undefined ? undefined : { cursor }, `tools/list page ${page}`),
      options.maxPages ?? DEFAULT_MAX_PAGES,
    );
  } catch (error) {
    report.checks.push(fail('mcp.tools_list', `tools/list failed: ${describeWithBearer(error, Boolean(options.bearer))}`, 'the server must answer tools/list'));
  }
  if (walk) {
    report.tools = walk.rows;
    report.checks.push(toolsListCheck(walk), singleToolCheck(walk));
    for (const c of [toolNameDotCheck(walk), toolIconsCheck(walk)]) if (c) report.checks.push(c);
    report.checks.push(actionsUrlCheck(walk));
  }
  const calls = toolsToCall(walk);
  if (calls.reason) report.checks.push(...callSkippedCheck(calls.reason));
  for (const name of calls.names) report.checks.push(callCheck(name, await callTool(connection, name, Boolean(options.bearer))));
  const resumed = resumeCheck(recorder.exchanges);
  if (resumed) report.checks.push(resumed);
  report.checks.push(sessionCheck(connection.era, connection.sessionId, report.events, recorder.exchanges));
  const closed = await connection.close();
  report.checks.push(terminateCheck(connection.era, closed, recorder.exchanges));
  return finish();
}
