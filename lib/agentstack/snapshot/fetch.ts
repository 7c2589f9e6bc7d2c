/**
 * `GET <base>/mcp/actions` with `If-None-Match` (an unchanged catalog costs a 304), read by catalog.ts.
 */
import { PluginError } from '../../platform/errors.js';
import { readCatalog, type CatalogRead } from './catalog.js';

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
  if (res.status !== 200) {
    const code = res.status === 401 || res.status === 403 ? 'invalid_grant' : 'server';
    throw new PluginError(code, `Fetching the action catalog from ${url} failed (HTTP ${res.status})`, { details: { status: res.status } });
  }
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
