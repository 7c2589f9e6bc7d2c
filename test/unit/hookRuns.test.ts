import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHookRuns, recordHookRun } from '../../lib/agentstack/plugin/hookRuns.js';
import { tempDir } from '../helpers/repo.js';
import { PRIVATE_MODE } from '../helpers/platform.js';

describe('hook run records (the heartbeat diagnose-local reads)', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => { dir = tempDir(); });
  afterEach(() => dir.cleanup());

  it('keeps one record per hook (the last run), 0600, with the Cursor version and composer mode from the input', () => {
    const path = join(dir.path, 'runs.json');
    const now = Date.parse('2026-12-02T12:00:00Z');
    expect(recordHookRun(path, 'session-start', { now, input: { cursor_version: '3.20.17', composer_mode: 'agent', user_email: 'a@b.c' }, pluginVersion: '0.5.0', outcome: 'answered' })).toBe(true);
    expect(recordHookRun(path, 'pre-mcp', { now: now + 10, input: { cursor_version: '3.20.17' }, pluginVersion: '0.5.0', outcome: 'ask' })).toBe(true);
    expect(recordHookRun(path, 'pre-mcp', { now: now + 20, input: null, pluginVersion: '0.5.0', outcome: 'neutral' })).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    const runs = readHookRuns(path);
    expect(runs['session-start']).toEqual({ at: new Date(now).toISOString(), cursor_version: '3.20.17', composer_mode: 'agent', plugin_version: '0.5.0', outcome: 'answered' });
    expect(runs['pre-mcp']?.outcome).toBe('neutral');
    expect(runs['pre-mcp']?.cursor_version).toBeNull();
    expect(readFileSync(path, 'utf8')).not.toContain('a@b.c');
  });

  it('bounded: hostile input fields are clipped to printable text; unknown hooks and bad records are skipped', () => {
    const path = join(dir.path, 'runs.json');
    recordHookRun(path, 'pre-mcp', { now: 0, input: { cursor_version: `9\u202e${'x'.repeat(10_000)}`, composer_mode: 42 }, pluginVersion: '0.5.0', outcome: 'ask' });
    expect(statSync(path).size).toBeLessThan(400);
    expect(readHookRuns(path)['pre-mcp']?.cursor_version).toMatch(/^9x+$/);
    writeFileSync(path, JSON.stringify({ 'pre-mcp': { at: 'never' }, 'session-start': { at: '2026-12-02T12:00:00Z' }, other: { at: '2026-12-02T12:00:00Z' } }));
    expect(Object.keys(readHookRuns(path))).toEqual(['session-start']);
    writeFileSync(path, '{oops');
    expect(readHookRuns(path)).toEqual({});
    expect(recordHookRun(path, 'pre-mcp', { now: 0, input: null, pluginVersion: '0.5.0', outcome: 'neutral' })).toBe(true);
    expect(recordHookRun(join(path, 'not-a-folder', 'runs.json'), 'pre-mcp', { now: 0, input: null, pluginVersion: '0.5.0', outcome: 'neutral' })).toBe(false);
  });
});
