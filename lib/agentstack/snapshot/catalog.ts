/**
 * The capability snapshot: `GET <base>/mcp/actions` flattened into `agentstack-capabilities.json`, with only the
 * tenant's entries (no operator, internal or admin ones). Refetched with `If-None-Match` so an unchanged catalog
 * costs a 304.
 */
import { PluginError } from '../../platform/errors.js';
import { ActionsCatalogSchema, type ActionsCatalog } from '../../schemas/server.js';
import { CapabilitySnapshotSchema, type CapabilitySnapshot, type SnapshotAction } from '../../schemas/state.js';
import { SECRET_FILE_MODE, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';

const HIDDEN_AUDIENCES = new Set(['operator', 'internal', 'admin']);

function isTenantEntry(entry: { doc_audience?: string | null; category?: string | null }): boolean {
  const audience = entry.doc_audience?.trim().toLowerCase();
  const category = entry.category?.trim().toLowerCase();
  return !(audience && HIDDEN_AUDIENCES.has(audience)) && !(category && HIDDEN_AUDIENCES.has(category));
}

/** The snapshot of a catalog: one flat, tenant-only list of actions, each with its domain. */
export function flattenCatalog(catalog: ActionsCatalog, options: { fetchedAt?: Date; serverUrl?: string } = {}): CapabilitySnapshot {
  const actions: SnapshotAction[] = [];
  for (const [domain, entries] of Object.entries(catalog.domains)) {
    for (const entry of entries) {
      if (!isTenantEntry(entry)) continue;
      actions.push({
        action: entry.action,
        domain,
        required_cap: entry.required_cap ?? null,
        summary: entry.summary ?? null,
        safe_action: entry.safe_action ?? null,
        category: entry.category ?? null,
        doc_audience: entry.doc_audience ?? null,
      });
    }
  }
  return {
    fetched_at: (options.fetchedAt ?? new Date()).toISOString(),
    audience: 'tenant',
    ...(options.serverUrl ? { server_url: options.serverUrl } : {}),
    total_actions: actions.length,
    actions,
    catalog_etag: catalog.catalog_etag ?? null,
  };
}

export type CatalogFetch = { status: 'not_modified' } | { status: 'ok'; catalog: ActionsCatalog; etag: string | null };

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
  const { httpRequest, parseJson } = await import('../../platform/http.js');
  const headers: Record<string, string> = { authorization: `Bearer ${args.token}`, accept: 'application/json' };
  if (args.etag) headers['if-none-match'] = quotedEtag(args.etag);
  const url = `${args.baseUrl}/mcp/actions`;
  const res = await httpRequest({ url, headers, signal: args.signal, timeoutMs: args.timeoutMs });
  if (res.status === 304) return { status: 'not_modified' };
  if (res.status !== 200) {
    const code = res.status === 401 || res.status === 403 ? 'invalid_grant' : 'server';
    throw new PluginError(code, `Fetching the action catalog from ${url} failed (HTTP ${res.status})`, { details: { status: res.status } });
  }
  const catalog = parseJson(res, ActionsCatalogSchema, 'The action catalog');
  const header = res.headers.get('etag');
  return { status: 'ok', catalog, etag: catalog.catalog_etag ?? (header ? header.replace(/^W\//, '').replace(/^"|"$/g, '') : null) };
}

export function writeSnapshot(path: string, snapshot: CapabilitySnapshot): void {
  writeFileAtomic(path, `${JSON.stringify(snapshot, null, 2)}\n`, { mode: SECRET_FILE_MODE });
}

/** The snapshot on disk, or null when it is missing or unreadable (a stale cache is simply refetched). */
export function readSnapshot(path: string): CapabilitySnapshot | null {
  const text = readTextIfExists(path);
  if (text === null) return null;
  try {
    const parsed = CapabilitySnapshotSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
