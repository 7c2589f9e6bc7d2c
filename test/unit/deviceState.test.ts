import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/repo.js';
import { readRefreshFile, writeRefreshFile, clearRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { readProjectPin, writeProjectPin } from '../../lib/agentstack/auth/projectPin.js';
import { flattenCatalog, readCatalog } from '../../lib/agentstack/snapshot/catalog.js';
import { readSnapshot, writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { PRIVATE_MODE } from '../helpers/platform.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir(); });
afterEach(() => dir.cleanup());

describe('refresh store', () => {
  it('writes JSON 0600 and reads it back; reads the legacy plain-text form', () => {
    const path = join(dir.path, 'agentstack-refresh');
    expect(readRefreshFile(path)).toBeNull();
    const data = { refresh_token: 'rt-123456789', scope: 'openid', token_type: 'bearer', obtained_at: 'x', expires_at: null, token_endpoint: 'https://a/t', client_id: 'cursor-plugin', resource: 'https://a/mcp' };
    writeRefreshFile(path, data);
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    expect(readRefreshFile(path)).toEqual(data);
    writeFileSync(path, 'legacy-refresh-token-value\n');
    expect(readRefreshFile(path)).toEqual({ refresh_token: 'legacy-refresh-token-value', legacy: true });
    writeFileSync(path, '{"nope": 1}');
    expect(() => readRefreshFile(path)).toThrow(/no usable refresh_token/);
    writeFileSync(path, 'two words');
    expect(() => readRefreshFile(path)).toThrow(/neither JSON/);
    expect(clearRefreshFile(path)).toBe(true);
  });
});

describe('project pin', () => {
  it('env wins; integer > 1 only, with a clear message otherwise', () => {
    const pin = join(dir.path, 'agentstack-project');
    expect(readProjectPin({}, pin)).toEqual({ projectId: null, source: 'none' });
    writeProjectPin(pin, 42);
    expect(statSync(pin).mode & 0o777).toBe(PRIVATE_MODE);
    expect(readProjectPin({}, pin)).toEqual({ projectId: 42, source: 'file' });
    expect(readProjectPin({ AGENTSTACK_PROJECT_ID: '7' }, pin)).toEqual({ projectId: 7, source: 'env' });
    expect(() => readProjectPin({ AGENTSTACK_PROJECT_ID: '1' }, pin)).toThrow(/integer greater than 1/);
    expect(() => writeProjectPin(pin, 1)).toThrow(/integer greater than 1/);
    for (const bad of ['abc', '1', '0', '-5']) {
      writeFileSync(pin, `${bad}\n`);
      const read = readProjectPin({}, pin);
      expect(read).toMatchObject({ projectId: null, source: 'none' });
      expect(read.ignored).toContain(`holds "${bad}"`);
      expect(read.ignored).toContain('config unset project');
    }
    writeProjectPin(pin, null);
    expect(readProjectPin({}, pin).source).toBe('none');
  });
});

describe('capability snapshot', () => {
  it('flattens, drops operator/internal/admin entries, keeps catalog_etag, writes 0600', () => {
    const snapshot = flattenCatalog(readCatalog({
      total_actions: 5,
      catalog_etag: 'abc',
      domains: {
        system: [{ action: 'system.ping', required_cap: null, doc_audience: 'tenant' }, { action: 'system.reindex', doc_audience: 'operator' }],
        data: [{ action: 'data.read', required_cap: 'data:read', category: 'read' }, { action: 'data.purge', category: 'Admin' }, { action: 'x.y', doc_audience: 'internal' }],
      },
    }), { fetchedAt: new Date(0), serverUrl: 'https://a/mcp' });
    expect(snapshot.actions.map((a) => a.action)).toEqual(['system.ping', 'data.read']);
    expect(snapshot).toMatchObject({ total_actions: 2, catalog_etag: 'abc', audience: 'tenant', fetched_at: '1970-01-01T00:00:00.000Z' });
    const path = join(dir.path, 'agentstack-capabilities.json');
    writeSnapshot(path, snapshot);
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    expect(readSnapshot(path)).toEqual(snapshot);
    writeFileSync(path, '{');
    expect(readSnapshot(path)).toBeNull();
  });
});
