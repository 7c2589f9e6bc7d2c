/** REST side of the server contract: tools mirrors equal tools/list, /mcp/actions, /mcp/icon, /mcp/health. */
import { pngSize } from '../audit/png.js';
import { quoteShort } from '../../platform/errors.js';
import { boundedFetch } from '../../platform/net/http.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { ActionsCatalogSchema, HealthSchema } from '../../schemas/server.js';
import { canonicalJson, requestJson, statusLine, type VerifyContext } from './fetchJson.js';

const TOOL_MIRRORS = [
  { method: 'GET', path: '/mcp/tools' },
  { method: 'GET', path: '/mcp/tools/list' },
  { method: 'POST', path: '/mcp/tools/list' },
] as const;

function names(rows: unknown[]): string {
  return rows.map((r) => quoteShort((r as { name?: unknown })?.name ?? '?', 60)).join(', ') || 'none';
}

/** "agentstack.execute differs from tools/list in description, icons (missing)": the unequal fields of same-named rows. */
export function describeRowDrift(rows: unknown[], rpcRows: unknown[]): string {
  const parts: string[] = [];
  rows.forEach((row, i) => {
    const a = (row ?? {}) as Record<string, unknown>;
    const b = (rpcRows[i] ?? {}) as Record<string, unknown>;
    const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()
      .filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]))
      .map((k) => (!(k in a) ? `${k} (missing)` : !(k in b) ? `${k} (extra)` : k));
    if (fields.length) parts.push(`${quoteShort(a.name ?? '?', 60)} differs from tools/list in ${fields.join(', ')}`);
  });
  return parts.join('; ') || 'the rows differ from tools/list';
}

/** GET /mcp/tools, GET and POST /mcp/tools/list must list the same rows as JSON-RPC tools/list (all pages). */
export async function toolsParityCheck(ctx: VerifyContext, rpcRows: unknown[] | undefined): Promise<Check> {
  const id = 'rest.tools_parity';
  if (!rpcRows) return warn(id, 'not compared: the JSON-RPC tools/list failed (see mcp.tools_list)');
  const problems: Array<{ where: string; what: string }> = [];
  for (const { method, path } of TOOL_MIRRORS) {
    const where = `${method} ${path}`;
    const answer = await requestJson(ctx, `${ctx.baseUrl}${path}`, { method, auth: true, ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
    if (answer.kind !== 'ok') problems.push({ where, what: answer.error });
    else if (answer.res.status !== 200) problems.push({ where, what: statusLine(answer.res, answer.json) });
    else {
      const rows = (answer.json as { tools?: unknown })?.tools;
      if (!Array.isArray(rows)) problems.push({ where, what: 'no tools array' });
      else if (canonicalJson(rows) !== canonicalJson(rpcRows)) {
        problems.push({ where, what: names(rows) === names(rpcRows) ? describeRowDrift(rows, rpcRows) : `lists ${names(rows)}; tools/list lists ${names(rpcRows)}` });
      }
    }
  }
  if (problems.length) return fail(id, summarizeProblems(problems), 'serve the REST mirrors from the same tool rows as tools/list', { problems: problems.map((p) => `${p.where}: ${p.what}`) });
  return pass(id, `GET /mcp/tools, GET and POST /mcp/tools/list equal tools/list (${names(rpcRows)})`);
}

/** The first problem with every endpoint that has the same one ("GET /mcp/tools, POST /mcp/tools/list: …"). */
function summarizeProblems(problems: Array<{ where: string; what: string }>): string {
  const { what } = problems[0]!;
  const same = problems.filter((p) => p.what === what);
  const others = problems.length - same.length;
  return `${same.map((p) => p.where).join(', ')}: ${what}${others ? ` (+${others} more)` : ''}`;
}

export async function actionsCheck(ctx: VerifyContext): Promise<Check[]> {
  const url = `${ctx.baseUrl}/mcp/actions`;
  if (!ctx.bearer) return [warn('rest.actions', 'not checked: GET /mcp/actions needs a Bearer', 'sign in, or pass --token-env NAME')];
  const answer = await requestJson(ctx, url, { auth: true });
  if (answer.kind !== 'ok') return [fail('rest.actions', `GET /mcp/actions: ${answer.error}`)];
  if (answer.res.status !== 200) return [fail('rest.actions', `GET /mcp/actions: ${statusLine(answer.res, answer.json)}`, 'the catalog must be readable with the user\'s token')];
  const parsed = ActionsCatalogSchema.safeParse(answer.json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return [fail('rest.actions', `GET /mcp/actions has an unexpected shape at ${issue?.path.map(String).join('.') || '(root)'}`, 'serve {version, entrypoint, total_actions, domains: {<domain>: [{action, …}]}, catalog_etag}')];
  }
  const catalog = parsed.data;
  const counted = Object.values(catalog.domains).reduce<number>((n, list) => n + (Array.isArray(list) ? list.length : 0), 0);
  const checks: Check[] = [];
  checks.push(catalog.total_actions === counted
    ? pass('rest.actions', `GET /mcp/actions: ${counted} actions in ${Object.keys(catalog.domains).length} domains, total_actions matches`)
    : fail('rest.actions', `total_actions says ${catalog.total_actions} but the catalog lists ${counted} actions`, 'compute total_actions from the listed actions', { total_actions: catalog.total_actions, counted }));
  checks.push(await etagCheck(ctx, url, answer.res.headers.get('etag')));
  return checks;
}

async function etagCheck(ctx: VerifyContext, url: string, etag: string | null): Promise<Check> {
  const id = 'rest.actions_etag';
  if (!etag) return warn(id, 'GET /mcp/actions sends no ETag: every refresh downloads the whole catalog', 'send an ETag and answer If-None-Match with 304');
  const again = await requestJson(ctx, url, { auth: true, headers: { 'if-none-match': etag } });
  if (again.kind !== 'ok') return warn(id, `If-None-Match request failed: ${again.error}`);
  if (again.res.status === 304) return pass(id, `ETag ${quoteShort(etag, 40)}; If-None-Match answered 304`);
  return warn(id, `If-None-Match with the catalog's own ETag answered HTTP ${again.res.status}, not 304`, 'answer a matching If-None-Match with 304 Not Modified');
}

export async function iconCheck(ctx: VerifyContext): Promise<Check> {
  const id = 'rest.icon';
  let res: Response;
  try {
    const fetchIcon = boundedFetch({ timeoutMs: ctx.timeoutMs, maxBytes: 1024 * 1024 });
    res = await (ctx.watch ? ctx.watch.fetch(fetchIcon) : fetchIcon)(`${ctx.baseUrl}/mcp/icon`, { headers: { origin: 'https://cursor.invalid' } });
  } catch (error) {
    return fail(id, `GET /mcp/icon: ${quoteShort((error as Error).message, 160)}`);
  }
  if (res.status !== 200) return fail(id, `GET /mcp/icon: HTTP ${res.status}`, 'serve the 64x64 PNG logo at /mcp/icon, without auth');
  const bytes = new Uint8Array(await res.arrayBuffer());
  const size = pngSize(bytes);
  const acao = res.headers.get('access-control-allow-origin');
  const problems: string[] = [];
  if (!size) problems.push(`the ${bytes.byteLength} bytes are not a PNG (labelled ${quoteShort(res.headers.get('content-type') ?? 'no content type', 40)})`);
  else if (size.width !== 64 || size.height !== 64) problems.push(`the PNG is ${size.width}x${size.height}, not 64x64`);
  if (acao !== '*') problems.push(acao ? `Access-Control-Allow-Origin is ${quoteShort(acao, 60)}, not *` : 'no Access-Control-Allow-Origin: *');
  if (problems.length) return fail(id, `GET /mcp/icon: ${problems.join('; ')}`, 'serve a 64x64 PNG with Access-Control-Allow-Origin: * (the logo Cursor shows)');
  return pass(id, `GET /mcp/icon: 64x64 PNG, ${bytes.byteLength} bytes, Access-Control-Allow-Origin: *`);
}

export async function healthCheck(ctx: VerifyContext): Promise<Check> {
  const id = 'rest.health';
  const answer = await requestJson(ctx, `${ctx.baseUrl}/mcp/health`);
  if (answer.kind !== 'ok') return fail(id, `GET /mcp/health: ${answer.error}`);
  if (answer.res.status !== 200) return fail(id, `GET /mcp/health: ${statusLine(answer.res, answer.json)}`);
  const parsed = HealthSchema.safeParse(answer.json);
  if (!parsed.success || !parsed.data.ok) return fail(id, 'GET /mcp/health does not say {ok: true}');
  const tools = parsed.data.mcp_surface_tools;
  if (tools !== undefined && tools !== 1) return warn(id, `GET /mcp/health: ok, but mcp_surface_tools is ${tools} (the contract is 1)`, 'list exactly one tool, agentstack.execute');
  return pass(id, `GET /mcp/health: ok${tools !== undefined ? `, ${tools} tool` : ''}`);
}
