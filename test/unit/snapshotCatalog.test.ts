/** The pure snapshot modules: reading a catalog entry by entry, flattening it, and the file layout. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flattenCatalog, isTenantEntry, readCatalog } from '../../lib/agentstack/snapshot/catalog.js';
import { ACTIONS_END, ACTIONS_KEY, serializeSnapshot, withoutActions } from '../../lib/agentstack/snapshot/layout.js';
import { skippedText } from '../../lib/agentstack/snapshot/skipped.js';
import { indexSnapshot, scanSnapshot } from '../../lib/agentstack/snapshot/actionIndex.js';
import { MeSchema, scopesSupportedOf } from '../../lib/schemas/server.js';

const good = (action: string, extra: Record<string, unknown> = {}) => ({ action, required_cap: 'data:read', ...extra });

describe('readCatalog: read what you use', () => {
  it('a field the plugin does not read never fails an entry, whatever its type', () => {
    const read = readCatalog({
      version: { major: 2 }, entrypoint: 42, total_actions: 'many',
      domains: { data: [good('data.a', { safe_action: 'yes' }), good('data.b', { safe_action: { level: 1 } }), good('data.c', { safe_action: false, summary: 17, x: [null] })] },
    });
    expect(read.entries.map((e) => e.entry.action)).toEqual(['data.a', 'data.b', 'data.c']);
    expect(read.skipped).toBe(0);
  });

  it('a malformed entry is skipped and counted with the first reason; the good ones stay', () => {
    const read = readCatalog({ domains: { p: [good('p.a'), { action: 12345 }, good('p.b'), 'oops', { action: 'p.c', required_cap: 7 }], q: { not: 'a list' } } });
    expect(read.entries.map((e) => e.entry.action)).toEqual(['p.a', 'p.b']);
    expect(read.skipped).toBe(4);
    expect(read.skippedReason).toMatch(/^domains\.p\.1\.action: /);
  });

  it('only a body without a domains object is refused', () => {
    expect(() => readCatalog({ actions: [] })).toThrow(/unexpected shape at domains/);
    expect(() => readCatalog([])).toThrow(/invalid_response|unexpected shape/);
    expect(readCatalog({ domains: {} })).toEqual({ entries: [], skipped: 0, skippedReason: null, etag: null });
  });

  it('flattenCatalog keeps tenant entries with only the fields the plugin reads, and records the skipped count', () => {
    const snapshot = flattenCatalog(readCatalog({
      catalog_etag: 'e1',
      domains: { s: [good('s.ping', { summary: 'x', safe_action: 'yes', x_meta: {} }), good('s.ops', { doc_audience: 'operator' }), { action: '' }] },
    }), { fetchedAt: new Date(0), serverUrl: 'https://a/mcp' });
    expect(snapshot.actions).toEqual([{ action: 's.ping', domain: 's', required_cap: 'data:read' }]);
    expect(snapshot).toMatchObject({ total_actions: 1, skipped_entries: 1, catalog_etag: 'e1', server_url: 'https://a/mcp' });
    expect(snapshot.skipped_reason).toMatch(/^domains\.s\.2\.action/);
  });

  it('property: for any generated catalog, the snapshot\'s actions are exactly its well-formed tenant entries', () => {
    const name = fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' });
    const audience = fc.constantFrom(undefined, null, 'public', 'tenant', 'operator', 'Internal', ' admin ');
    const wellFormed = fc.record({
      action: name,
      required_cap: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
      doc_audience: audience,
      category: fc.constantFrom(undefined, 'data', 'ADMIN'),
      safe_action: fc.anything(),
      summary: fc.anything(),
    }, { requiredKeys: ['action'] });
    const malformed = fc.oneof(
      fc.record({ action: fc.oneof(fc.integer(), fc.constant(''), fc.constant(null), fc.string({ minLength: 201, maxLength: 210 })) }),
      fc.record({ action: name, required_cap: fc.oneof(fc.integer(), fc.boolean(), fc.object()) }),
      fc.record({ action: name, doc_audience: fc.oneof(fc.integer(), fc.array(fc.string())) }),
      fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    );
    const item = fc.oneof(wellFormed.map((e) => ({ ok: true as const, e })), malformed.map((e) => ({ ok: false as const, e })));
    fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 10 }), fc.array(item, { maxLength: 8 }), { maxKeys: 5 }), (domains) => {
      const body = { domains: Object.fromEntries(Object.entries(domains).map(([d, list]) => [d, list.map((i) => i.e)])) };
      const snapshot = flattenCatalog(readCatalog(JSON.parse(JSON.stringify(body))));
      const expected: string[] = [];
      let bad = 0;
      for (const list of Object.values(domains)) {
        for (const i of list) {
          if (!i.ok) bad++;
          else if (isTenantEntry(i.e as { doc_audience?: string | null; category?: string | null })) expected.push(i.e.action);
        }
      }
      expect(snapshot.actions.map((a) => a.action)).toEqual(expected);
      expect(snapshot.skipped_entries).toBe(bad);
      for (const a of snapshot.actions) expect(Object.keys(a).sort()).toEqual(['action', 'domain', 'required_cap']);
    }), {
      numRuns: 400,
      // Found by this property: a domain named __proto__ (an own key of the parsed JSON) was neither kept nor counted.
      examples: [[JSON.parse('{"__proto__": [{"ok": true, "e": {"action": "p.ping"}}, {"ok": false, "e": 7}], "d": []}')]],
    });
  });

  it('keeps the entries of a domain named __proto__ like any other domain\'s', () => {
    const read = readCatalog(JSON.parse('{"domains": {"__proto__": [{"action": "p.ping"}, 7], "constructor": [{"action": "c.ping"}]}}'));
    expect(read.entries.map((e) => [e.domain, e.entry.action])).toEqual([['__proto__', 'p.ping'], ['constructor', 'c.ping']]);
    expect(read.skipped).toBe(1);
    expect(read.skippedReason).toMatch(/^domains\.__proto__\.1/);
    expect(flattenCatalog(read).actions[0]).toEqual({ action: 'p.ping', domain: '__proto__', required_cap: null });
  });
});

describe('the snapshot layout: one writer, two fast readers', () => {
  const snapshot = flattenCatalog(readCatalog({ domains: { d: [good('d.a'), good('d.b', { required_cap: null })] } }), { fetchedAt: new Date(0) });

  it('the writer lays out actions between ACTIONS_KEY and ACTIONS_END; withoutActions cuts them out', () => {
    const text = serializeSnapshot({ ...snapshot, unapproved: ['d.b'] });
    expect(text).toContain(ACTIONS_KEY);
    expect(text).toContain(ACTIONS_END);
    const rest = JSON.parse(withoutActions(text, text)!);
    expect(rest).toMatchObject({ actions: [], unapproved: ['d.b'], total_actions: 2 });
    expect(withoutActions(JSON.stringify(snapshot), JSON.stringify(snapshot))).toBeNull();
  });

  it('the pre-MCP fast reader agrees with the full index on a written file', () => {
    const text = serializeSnapshot(snapshot);
    const fast = scanSnapshot(text, new Set(['d.a', 'd.b']))!;
    const full = indexSnapshot(JSON.parse(text))!;
    for (const name of ['d.a', 'd.b']) expect([fast.has(name), fast.capOf(name)]).toEqual([full.has(name), full.capOf(name)]);
  });
});

describe('other server documents: read what you use', () => {
  it('/api/auth/me: only user_id is required; an email or display name of another type reads as absent', () => {
    expect(MeSchema.parse({ data: { user_id: 'u1', role: { x: 1 }, extra: [1] } }).data).toMatchObject({ user_id: 'u1' });
    expect(MeSchema.parse({ data: { user_id: 7, email: 42, display_name: 'Ann' } }).data).toMatchObject({ user_id: 7, email: undefined, display_name: 'Ann' });
    expect(MeSchema.safeParse({ data: { email: 'a@b' } }).success).toBe(false);
  });

  it('scopes_supported: string items kept, others skipped, an absent or empty list is null', () => {
    expect(scopesSupportedOf({ scopes_supported: ['a', 1, 'b c', 'b', 'a'] })).toEqual(['a', 'b']);
    expect(scopesSupportedOf({ scopes_supported: 'a b' })).toBeNull();
    expect(scopesSupportedOf({ scopes_supported: [] })).toBeNull();
    expect(scopesSupportedOf(null)).toBeNull();
  });

  it('skippedText says how many and why', () => {
    expect(skippedText(1, 'domains.p.1.action: bad')).toBe('1 malformed catalog entry was left out (first: domains.p.1.action: bad)');
    expect(skippedText(3, null)).toBe('3 malformed catalog entries were left out');
  });
});
