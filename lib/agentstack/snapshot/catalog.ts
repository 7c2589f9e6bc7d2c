/**
 * The action catalog (`GET <base>/mcp/actions`) turned into the capability snapshot, pure: `readCatalog` checks a
 * parsed body entry by entry (a malformed entry is skipped and counted, never the whole list), `flattenCatalog`
 * keeps the tenant's entries (no operator, internal or admin ones) as one flat list with only the fields the plugin
 * reads. The request is fetch.ts; the file is store.ts.
 */
import { PluginError, quoteShort } from '../../platform/errors.js';
import { ActionEntrySchema, ActionsCatalogSchema, type ActionEntry } from '../../schemas/server.js';
import type { CapabilitySnapshot, SnapshotAction } from '../../schemas/state.js';

export interface CatalogRead {
  /** The well-formed entries, each with its domain, in the catalog's order. */
  entries: Array<{ domain: string; entry: ActionEntry }>;
  /** How many entries were left out as malformed, and why the first was. */
  skipped: number;
  skippedReason: string | null;
  /** The catalog's own `catalog_etag`, when it is a string. */
  etag: string | null;
}

const HIDDEN_AUDIENCES = new Set(['operator', 'internal', 'admin']);

export function isTenantEntry(entry: Pick<ActionEntry, 'doc_audience' | 'category'>): boolean {
  const audience = entry.doc_audience?.trim().toLowerCase();
  const category = entry.category?.trim().toLowerCase();
  return !(audience && HIDDEN_AUDIENCES.has(audience)) && !(category && HIDDEN_AUDIENCES.has(category));
}

const where = (path: ReadonlyArray<PropertyKey>) => path.map((key) => quoteShort(String(key), 40)).join('.');

/**
 * Checks a parsed catalog body. Only a body without a `domains` object is refused (`invalid_response`); a domain
 * whose value is not a list counts as one skipped entry, and so does each entry that is not well formed.
 */
export function readCatalog(value: unknown, what = 'The action catalog'): CatalogRead {
  const top = ActionsCatalogSchema.safeParse(value);
  if (!top.success) {
    const issue = top.error.issues[0];
    throw new PluginError('invalid_response', `${what} has an unexpected shape at ${issue?.path.length ? where(issue.path) : '(root)'}: ${quoteShort(issue?.message ?? 'invalid', 120)}`);
  }
  const out: CatalogRead = { entries: [], skipped: 0, skippedReason: null, etag: typeof top.data.catalog_etag === 'string' ? top.data.catalog_etag : null };
  const skip = (reason: string) => {
    out.skipped += 1;
    out.skippedReason ??= reason;
  };
  // The body's own keys, not zod's copy: the copy leaves out a domain named __proto__ (an own key of parsed JSON).
  for (const [domain, list] of Object.entries((value as { domains: Record<string, unknown> }).domains)) {
    if (!Array.isArray(list)) {
      skip(`domains.${where([domain])} is not a list`);
      continue;
    }
    for (let i = 0; i < list.length; i++) {
      const parsed = ActionEntrySchema.safeParse(list[i]);
      if (parsed.success) {
        out.entries.push({ domain, entry: parsed.data });
      } else {
        const issue = parsed.error.issues[0];
        skip(`domains.${where([domain, i, ...(issue?.path ?? [])])}: ${quoteShort(issue?.message ?? 'invalid', 80)}`);
      }
    }
  }
  return out;
}

/** The snapshot of a catalog: its tenant entries as one flat list, each with its domain and required capability. */
export function flattenCatalog(catalog: CatalogRead, options: { fetchedAt?: Date; serverUrl?: string } = {}): CapabilitySnapshot {
  const actions: SnapshotAction[] = [];
  for (const { domain, entry } of catalog.entries) {
    if (isTenantEntry(entry)) actions.push({ action: entry.action, domain, required_cap: entry.required_cap ?? null });
  }
  return {
    fetched_at: (options.fetchedAt ?? new Date()).toISOString(),
    audience: 'tenant',
    ...(options.serverUrl ? { server_url: options.serverUrl } : {}),
    total_actions: actions.length,
    skipped_entries: catalog.skipped,
    skipped_reason: catalog.skippedReason,
    actions,
    catalog_etag: catalog.etag,
  };
}
