/** Pure decisions of the probe: facts in, PASS / WARN / FAIL checks out (each with a one-line reason and fix). */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { isSafeWebUrl } from '../server/baseUrl.js';
import { quoteShort } from '../../platform/errors.js';
import { maskSecret } from '../../platform/text/mask.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { EXECUTE_TOOL, EXECUTE_TOOL_ALIAS } from '../server/toolNames.js';
import { iconProblems } from './toolsList.js';
import type { Era, Exchange, ProbeEvent, ToolsWalk } from './types.js';

export const OFFERED_PROTOCOL = '2025-11-25';
export const MODERN_PROTOCOL = '2026-07-28';

const ICON_FIX = `serve icons: [{src: "<base>/mcp/icon", mimeType: "image/png", sizes: ["64x64"]}]`;

export function initializeCheck(c: { era: Era; protocolVersion?: string; serverInfo?: Record<string, unknown>; sessionId?: string }, ms?: number): Check {
  const who = c.serverInfo ? `${quoteShort(c.serverInfo.name ?? '?', 60)} ${quoteShort(c.serverInfo.version ?? '', 30)}`.trim() : 'an unnamed server';
  const time = ms === undefined ? '' : `, ${Math.round(ms)} ms`;
  if (c.era === 'modern') {
    return pass('mcp.initialize', `server/discover answered by ${who}: protocol ${c.protocolVersion ?? MODERN_PROTOCOL} (stateless revision, no initialize)${time}`, { era: c.era, protocolVersion: c.protocolVersion });
  }
  const session = c.sessionId ? `session ${maskSecret(c.sessionId)}` : 'no session id (stateless server)';
  const details = { era: c.era, protocolVersion: c.protocolVersion, session: c.sessionId ? maskSecret(c.sessionId) : null };
  if (c.protocolVersion && c.protocolVersion < OFFERED_PROTOCOL) {
    return warn('mcp.initialize', `initialize answered by ${who} with the older protocol ${c.protocolVersion} (offered ${OFFERED_PROTOCOL}); ${session}${time}`,
      `upgrade the server's MCP SDK: Cursor sends ${OFFERED_PROTOCOL}, and icons need it`, details);
  }
  return pass('mcp.initialize', `initialize answered by ${who}: protocol ${c.protocolVersion ?? '?'}, ${session}${time}`, details);
}

export function serverIconsCheck(serverInfo: Record<string, unknown> | undefined): Check {
  const icons = serverInfo?.icons;
  if (icons === undefined) return warn('mcp.server_icons', 'serverInfo has no icons; Cursor shows a generic logo for the server', ICON_FIX + ' on serverInfo');
  const problems = iconProblems(icons);
  if (problems.length) return warn('mcp.server_icons', `serverInfo.icons is malformed: ${problems.join('; ')}`, ICON_FIX + ' on serverInfo');
  return pass('mcp.server_icons', `serverInfo has ${describeIcons(icons as unknown[])}`);
}

function describeIcons(icons: unknown[]): string {
  const first = icons[0] as { mimeType?: unknown; sizes?: unknown };
  const sizes = Array.isArray(first.sizes) ? ` ${first.sizes.map((s) => quoteShort(s, 20)).join(',')}` : '';
  return `${icons.length} icon${icons.length === 1 ? '' : 's'} (${quoteShort(first.mimeType ?? 'no mimeType', 40)}${sizes})`;
}

export function toolsListCheck(walk: ToolsWalk): Check {
  const malformed = walk.tools.filter((t) => t.problems.length);
  const details = { pages: walk.pages, tools: walk.tools.map((t) => ({ page: t.page, name: t.name, problems: t.problems })) };
  if (walk.stopped) return fail('mcp.tools_list', `tools/list paging broke: ${walk.stopped}`, 'end paging with no nextCursor once every tool was listed', details);
  if (malformed.length) {
    const what = malformed.slice(0, 3).map((t) => `${t.name ?? '(no name)'} on page ${t.page}: ${t.problems[0]}`).join('; ');
    return fail('mcp.tools_list', `${malformed.length} malformed tool${malformed.length === 1 ? '' : 's'} in tools/list: ${what}`, 'fix the tool definitions (name, inputSchema {type: "object"}, icons)', details);
  }
  return pass('mcp.tools_list', `${walk.tools.length} tool${walk.tools.length === 1 ? '' : 's'} on ${walk.pages} page${walk.pages === 1 ? '' : 's'} (every nextCursor followed)`, details);
}

function where(walk: ToolsWalk, name: string | null): string {
  const pages = [...new Set(walk.tools.filter((t) => t.name === name).map((t) => t.page))];
  return walk.pages > 1 ? ` (page ${pages.join(',')})` : '';
}

/** The contract: exactly one tool in total, named agentstack.execute, on every page together. */
export function singleToolCheck(walk: ToolsWalk): Check {
  const names = walk.tools.map((t) => t.name);
  const list = (ns: Array<string | null>) => ns.slice(0, 6).map((n) => `${n ?? '(no name)'}${where(walk, n)}`).join(', ') + (ns.length > 6 ? ', …' : '');
  if (!names.includes(EXECUTE_TOOL)) {
    return fail('mcp.single_tool', `no ${EXECUTE_TOOL} among ${names.length} tool${names.length === 1 ? '' : 's'}${names.length ? ` (${list(names)})` : ''}: this MCP surface is not AgentStack's`,
      `point the URL at AgentStack's <base>/mcp, or make the server list exactly one tool, ${EXECUTE_TOOL}`);
  }
  if (names.includes(EXECUTE_TOOL_ALIAS)) {
    return fail('mcp.single_tool', `${EXECUTE_TOOL_ALIAS} is listed${where(walk, EXECUTE_TOOL_ALIAS)} next to ${EXECUTE_TOOL}: the alias must be accepted on tools/call, never listed`,
      `remove ${EXECUTE_TOOL_ALIAS} from tools/list`);
  }
  if (names.length !== 1) {
    const others = names.filter((n) => n !== EXECUTE_TOOL);
    const dup = names.filter((n) => n === EXECUTE_TOOL).length > 1 ? `${EXECUTE_TOOL} listed twice; ` : '';
    return fail('mcp.single_tool', `${names.length} tools listed (${dup}${list(others.length ? others : names)} besides ${EXECUTE_TOOL}); AgentStack's contract is exactly one tool`,
      `list only ${EXECUTE_TOOL}, on every page behind nextCursor; other operations are actions inside it`);
  }
  return pass('mcp.single_tool', `exactly one tool: ${EXECUTE_TOOL}`);
}

export function toolNameDotCheck(walk: ToolsWalk): Check | null {
  if (!walk.tools.some((t) => t.name === EXECUTE_TOOL)) return null;
  return warn('mcp.tool_name_dot', `${EXECUTE_TOOL} contains a dot; some Cursor builds drop such tool names (reported)`,
    `where the tool is missing, ${EXECUTE_TOOL_ALIAS} (accepted on tools/call, never listed) helps clients that pass any tool name to tools/call (the MCP SDK client, an agent told the name); clients that only call names tools/list returned (MCP Inspector) cannot use it`);
}

export function toolIconsCheck(walk: ToolsWalk): Check | null {
  const tool = walk.tools.find((t) => t.name === EXECUTE_TOOL);
  if (!tool) return null;
  if (tool.icons === undefined) return fail('mcp.tool_icons', `${EXECUTE_TOOL} has no icons; Cursor shows no logo next to the tool`, `${ICON_FIX} on the tool`);
  const problems = iconProblems(tool.icons);
  if (problems.length) return fail('mcp.tool_icons', `${EXECUTE_TOOL} icons are malformed: ${problems.join('; ')}`, `${ICON_FIX} on the tool`);
  return pass('mcp.tool_icons', `${EXECUTE_TOOL} has ${describeIcons(tool.icons as unknown[])}`);
}

export function actionsUrlCheck(walk: ToolsWalk): Check {
  const url = walk.actionsUrls[0] ?? null;
  if (url === null) return fail('mcp.actions_url', 'the tools/list result has no actions_url', 'add actions_url: "<base>/mcp/actions" to the tools/list result');
  if (!isSafeWebUrl(url)) return fail('mcp.actions_url', `actions_url ${JSON.stringify(url)} is not an https URL`, 'serve actions_url as https://<host>/mcp/actions');
  return pass('mcp.actions_url', `actions_url ${url}`);
}

export type CallOutcome = { kind: 'ok'; result: Record<string, unknown>; ms: number } | { kind: 'failed'; error: string; ms: number };

/** What a tools/call result says about itself, in one short line. */
function toolErrorText(result: Record<string, unknown>): string {
  const structured = result.structuredContent as { error?: { message?: unknown }; results?: Array<{ error?: { message?: unknown } }> } | undefined;
  const msg = structured?.error?.message ?? structured?.results?.find((r) => r.error)?.error?.message;
  if (msg !== undefined) return quoteShort(msg, 100);
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: unknown; text?: unknown }>) : [];
  const text = content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text;
  return text ? quoteShort(text, 100) : 'no error text';
}

/** Why a tools/call result is not a CallToolResult with content (the SDK's schema), or null when it is one. */
export function callResultProblem(result: Record<string, unknown>): string | null {
  if (!Array.isArray(result.content) || result.content.length === 0) {
    return result.content === undefined ? 'no content (a CallToolResult must carry content)' : 'content is not a non-empty list of content blocks';
  }
  const parsed = CallToolResultSchema.safeParse(result);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return `not a valid CallToolResult at ${issue?.path.map(String).join('.') || '(root)'} (${quoteShort(issue?.message ?? 'invalid', 80)})`;
}

export function callCheck(name: string, outcome: CallOutcome): Check {
  const id = name === EXECUTE_TOOL ? 'mcp.call_canonical' : 'mcp.call_alias';
  const what = `tools/call ${name} {system.ping}`;
  if (outcome.kind !== 'ok') return fail(id, `${what} failed: ${outcome.error}`, `the server must accept ${name} on tools/call and run system.ping`);
  if (outcome.result.isError === true) {
    const text = toolErrorText(outcome.result);
    const unknown = /not found|unknown tool/i.test(text);
    return fail(id, `${what} returned isError: ${text}`, unknown ? `the server does not know ${name}: not AgentStack's endpoint, or the alias is missing` : 'check the token\'s capabilities and the server logs');
  }
  const problem = callResultProblem(outcome.result);
  if (problem) return fail(id, `${what} answered, but ${problem}`, 'answer tools/call with {content: [{type: "text", text: …}], structuredContent?, isError?}');
  return pass(id, `${what} answered a CallToolResult without error (${Math.round(outcome.ms)} ms)`);
}

/** The call rows when the probe called nothing (see callPolicy.ts), under the ids a call would have had. */
export function callSkippedCheck(reason: string): Check[] {
  return [EXECUTE_TOOL_ALIAS, EXECUTE_TOOL].map((name) =>
    warn(name === EXECUTE_TOOL ? 'mcp.call_canonical' : 'mcp.call_alias', `tools/call ${name} not called: ${reason}`,
      `point the URL at AgentStack's <base>/mcp; the probe only calls ${EXECUTE_TOOL} where the server lists it`));
}

/**
 * A 401/403 on the MCP endpoint, worded by whether the probe sent a Bearer; null for any other status. A plain-text
 * `reason` from the server (already sanitized) is shown as the server's words, in place of our guess at the cause.
 */
export function authFailureCheck(status: number | null, hadBearer: boolean, mcpUrl: string, id = 'mcp.initialize', reason: string | null = null): Check | null {
  const said = reason ? `; the server said: "${reason}"` : '';
  if (status === 401) {
    return hadBearer
      ? fail(id, `${mcpUrl} answered 401 although a Bearer was sent: the Bearer was not accepted (expired or revoked?)${said}`, 'sign in again (device-code login), or pass a fresh token with --token-env NAME')
      : fail(id, `${mcpUrl} answered 401: no Bearer was sent${said}`, 'sign in first, or pass a token with --token-env NAME');
  }
  if (status === 403 && reason) {
    return fail(id, `${mcpUrl} answered 403 ${hadBearer ? 'although a Bearer was sent' : 'to a request without a Bearer'}${said}`,
      'do what the server\'s reason asks (often the host name or address it allows: use that URL, or change its allowed hosts); a token does not change a Host or Origin check');
  }
  if (status === 403) {
    return hadBearer
      ? fail(id, `${mcpUrl} answered 403 although a Bearer was sent: the token was refused (scope, account, or Origin policy)`, 'sign in with an account and scopes that may use this MCP server; check the server\'s Origin rules')
      : fail(id, `${mcpUrl} answered 403 to a request without a Bearer: the server forbids it before any token is checked (Origin, IP or policy)`, 'sign in first, or pass a token with --token-env NAME; if it persists, check the server\'s Origin and network rules');
  }
  return null;
}

/** Exchanges that carried a session id and were answered 400 or 404: the server did not take that session. */
function refusedSessionExchanges(exchanges: readonly Exchange[]): Exchange[] {
  return exchanges.filter((x) => x.sent.sessionId !== undefined && x.httpMethod === 'POST' && (x.status === 400 || x.status === 404));
}

export function sessionCheck(era: Era, sessionId: string | undefined, events: readonly ProbeEvent[], exchanges: readonly Exchange[] = []): Check {
  if (era === 'modern') return pass('mcp.session', `${MODERN_PROTOCOL} has no sessions; every request stood alone`);
  const lost = (e: ProbeEvent) => events.find((r) => r.kind === 'reinitialized' && r.during === e.during)?.reason ?? 'session not found';
  const refused = events.find((e) => e.kind === 'reinitialize_failed');
  if (refused) {
    return fail('mcp.session', `session expired during ${refused.during} (${lost(refused)}); re-initializing failed: ${refused.reason}`,
      'the server must accept a new initialize once a session is gone (check its session limit and restarts)', { events });
  }
  const again = events.find((e) => e.kind === 'session_expired_again');
  if (again) {
    return fail('mcp.session', `session expired during ${again.during} (${lost(again)}), and again (${again.reason}) even right after a fresh initialize`,
      'the server (or a proxy in front of it) forgets sessions immediately: check its session store, sticky routing, restarts', { events });
  }
  const reinit = events.filter((e) => e.kind === 'reinitialized');
  const retryFailed = events.find((e) => e.kind === 'retry_failed');
  if (retryFailed) {
    return warn('mcp.session', `session expired during ${retryFailed.during} (${lost(retryFailed)}); re-initialized on a new transport, but the retry failed for another reason (${retryFailed.reason}, see that row)`,
      'fine after a server restart; if it happens often, check the server\'s session lifetime', { events });
  }
  if (reinit.length) {
    const first = reinit[0]!;
    return warn('mcp.session', `session expired during ${first.during} (${first.reason}); re-initialized on a new transport and the retry passed${reinit.length > 1 ? ` (${reinit.length} times)` : ''}`,
      'fine after a server restart; if it happens often, check the server\'s session lifetime', { events });
  }
  const refusedIds = refusedSessionExchanges(exchanges);
  if (refusedIds.length) {
    const first = refusedIds[0]!;
    return warn('mcp.session', `the session id was answered HTTP ${first.status} on ${first.rpcMethod ?? 'a request'}${refusedIds.length > 1 ? ` (${refusedIds.length} times)` : ''}, in a way the probe does not read as an expired session; it was not re-initialized`,
      'answer an unknown or expired session with HTTP 404 (JSON-RPC -32001), so clients start a new one', { refused: refusedIds.map((x) => ({ seq: x.seq, status: x.status, rpcMethod: x.rpcMethod ?? null })) });
  }
  if (!sessionId) return pass('mcp.session', 'stateless server (no Mcp-Session-Id); nothing to expire');
  return pass('mcp.session', `session ${maskSecret(sessionId)} held for the whole probe`);
}

/** Only when the transport resumed a response stream (GET with Last-Event-ID): how that went. */
export function resumeCheck(exchanges: readonly Exchange[]): Check | null {
  const resumes = exchanges.filter((x) => x.httpMethod === 'GET' && x.sent.lastEventId !== undefined);
  if (!resumes.length) return null;
  const refused = resumes.filter((x) => x.status === undefined || x.status >= 300);
  const details = { resumes: resumes.map((x) => ({ seq: x.seq, atMs: x.atMs, status: x.status ?? null, lastEventId: x.sent.lastEventId })) };
  if (refused.length === resumes.length) {
    const first = refused[0]!;
    return fail('mcp.resume', `a response stream closed before its result; resuming it with GET + Last-Event-ID failed (${first.status ? `HTTP ${first.status}` : first.error ?? 'no answer'})`,
      'keep response streams open until their result, or answer GET with Last-Event-ID from an event store (Streamable HTTP resumability)', details);
  }
  return pass('mcp.resume', `a response stream closed before its result; resumed it with GET + Last-Event-ID (${resumes.length} time${resumes.length === 1 ? '' : 's'}, HTTP ${resumes.find((x) => x.status !== undefined && x.status < 300)?.status})`, details);
}

export function terminateCheck(era: Era, closed: { terminated: boolean; error?: string }, exchanges: readonly Exchange[]): Check {
  if (era === 'modern') return pass('mcp.terminate', `nothing to end (${MODERN_PROTOCOL} is stateless)`);
  const del = [...exchanges].reverse().find((x) => x.httpMethod === 'DELETE');
  if (!del) return pass('mcp.terminate', 'no session to end');
  if (del.status === 405) return pass('mcp.terminate', 'DELETE answered 405: the server does not end sessions on request (allowed)');
  if (closed.terminated && del.status !== undefined && del.status < 300) return pass('mcp.terminate', `DELETE ended the session (HTTP ${del.status})`);
  return warn('mcp.terminate', `DELETE did not end the session: ${del.status ? `HTTP ${del.status}` : closed.error ?? del.error ?? 'no answer'}`,
    'answer DELETE on /mcp with 200/204 (or 405 if sessions cannot be ended)');
}
