/**
 * `GET <base>/mcp/actions` with `If-None-Match` (an unchanged catalog costs a 304), read by catalog.ts.
 */
import { PluginError, quoteShort } from '../../platform/errors.js';
import { readCatalog, type CatalogRead } from './catalog.js';
import { bearerVerdict } from '../../platform/net/bearerChallenge.js';

export type CatalogFetch = { kind: 'not_modified' } | { kind: 'ok'; catalog: CatalogRead; etag: string | null };

/** `If-None-Match` wants the quoted entity tag; the snapshot stores the catalog's bare `catalog_etag`. */
function quotedEtag(etag: string): string {
  return etag.startsWith('"') || etag.startsWith('W/') ? etag : `"${etag}"`;
}

export async function fetchCatalog(args: {
  baseUrl: string;
  token: string;
  etag?: string | null;
  signal?: AbortSignal;
  timeoutMs?: number;
}): Promise<CatalogFetch> {
  const { httpRequest } = await import('../../platform/net/http.js');
  const headers: Record<string, string> = { authorization: `Bearer ${args.token}`, accept: 'application/json' };
  if (args.etag) headers['if-none-match'] = quotedEtag(args.etag);
  const url = `${args.baseUrl}/mcp/actions`;
  const res = await httpRequest({ url, headers, signal: args.signal, timeoutMs: args.timeoutMs });
  if (res.status === 304) return { kind: 'not_modified' };
  if (res.status !== 200) throw catalogFailure(url, res.status, res.headers.get('www-authenticate'));
  let value: unknown;
  try {
    value = JSON.parse(res.text);
  } catch {
    throw new PluginError('invalid_response', `The action catalog from ${url} is not valid JSON`);
  }
  const catalog = readCatalog(value, `The action catalog from ${url}`);
  const header = res.headers.get('etag');
  return { kind: 'ok', catalog, etag: catalog.etag ?? (header ? header.replace(/^W\//, '').replace(/^"|"$/g, '') : null) };
}

/**
 * A non-200 answer as an error. `invalid_grant` (the token is refused: views call it expired) for a 401 that says
 * `invalid_token` or gives no error code, and for a 403 that is not about scope; a 403 `insufficient_scope` leaves
 * the token alone (it is valid, it lacks a scope) and names the scope; anything else is `server`.
 */
export function catalogFailure(url: string, status: number, wwwAuthenticate: string | null): PluginError {
  const verdict = bearerVerdict(status, wwwAuthenticate);
  if (verdict?.kind === 'insufficient_scope') {
    const scope = verdict.scope ? `the scope ${quoteShort(verdict.scope, 120)}` : 'a scope the server did not name';
    return new PluginError('server', `Fetching the action catalog from ${url} failed (HTTP 403 insufficient_scope): the token lacks ${scope}`, {
      details: { status, insufficient_scope: true, scope: verdict.scope },
    });
  }
  const refused = verdict?.kind === 'refused' || status === 403;
  const code = verdict?.kind === 'refused' && verdict.error ? ` ${verdict.error}` : '';
  return new PluginError(refused ? 'invalid_grant' : 'server', `Fetching the action catalog from ${url} failed (HTTP ${status}${code})`, { details: { status } });
}
