/** The verify checks' one HTTP helper: a bounded request, JSON parsed when it is JSON, failures as values. */
import { quoteShort } from '../../platform/errors.js';
import { httpRequest, type HttpResponse } from '../../platform/net/http.js';
import type { OriginWatch } from '../../platform/net/originWatch.js';

export interface VerifyContext {
  baseUrl: string;
  mcpUrl: string;
  /** Never printed. */
  bearer?: string;
  timeoutMs: number;
  /** The run's memory of servers that gave no answer (they are not asked again), and its slow-request notes. */
  watch?: OriginWatch;
}

export type JsonAnswer = { kind: 'ok'; res: HttpResponse; json: unknown } | { kind: 'failed'; error: string };

export async function requestJson(
  ctx: VerifyContext,
  url: string,
  init: { method?: string; auth?: boolean; headers?: Record<string, string>; body?: string } = {},
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.auth && ctx.bearer) headers.authorization = `Bearer ${ctx.bearer}`;
  try {
    const send = () => httpRequest({ url, method: init.method ?? 'GET', headers, body: init.body, timeoutMs: ctx.timeoutMs });
    const res = await (ctx.watch ? ctx.watch.run(url, send) : send());
    let json: unknown = null;
    try {
      json = res.text ? (JSON.parse(res.text) as unknown) : null;
    } catch {
      json = null;
    }
    return { kind: 'ok', res, json };
  } catch (error) {
    return { kind: 'failed', error: quoteShort((error as Error).message, 160) };
  }
}

/** "HTTP 404" plus an OAuth-style `error` from the body when there is one (never the raw body). */
export function statusLine(res: HttpResponse, json: unknown): string {
  const body = json as { error?: unknown; error_description?: unknown } | null;
  const oauth = body && typeof body.error === 'string' ? ` (${quoteShort(body.error, 40)}${typeof body.error_description === 'string' ? `: ${quoteShort(body.error_description, 80)}` : ''})` : '';
  return `HTTP ${res.status}${oauth}`;
}

/** JSON with sorted keys, so two documents compare equal whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
