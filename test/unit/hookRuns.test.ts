import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_RUN_RESOLUTION_MS, readHookRuns, recordHookRun } from '../../lib/agentstack/plugin/hookRuns.js';
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
    expect(runs['session-start']).toEqual({ at: new Date(now).toISOString(), cursor_version: '3.20.17', composer_mode: 'agent', plugin_version: '0.5.0', outcome: 'answered', unknown_form: null });
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
  it('a run that would only move the time of a record less than a minute old leaves the file alone', () => {
    const path = join(dir.path, 'runs.json');
    const at = Date.parse('2026-12-02T12:00:00Z');
    const run = (now: number, outcome = 'neutral', cursor = '3.20.17') =>
      recordHookRun(path, 'pre-mcp', { now, input: { cursor_version: cursor }, pluginVersion: '0.5.0', outcome });
    const recordedAt = () => readHookRuns(path)['pre-mcp']?.at;
    expect(run(at)).toBe(true);
    const written = readFileSync(path, 'utf8');
    expect(run(at + HOOK_RUN_RESOLUTION_MS - 1)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(written);
    // A minute later, the time moves.
    expect(run(at + HOOK_RUN_RESOLUTION_MS)).toBe(true);
    expect(recordedAt()).toBe(new Date(at + HOOK_RUN_RESOLUTION_MS).toISOString());
    // Anything new is written at once: the outcome, the Cursor version; and a time before the recorded one (a clock set back).
    const base = at + HOOK_RUN_RESOLUTION_MS;
    run(base + 1, 'ask');
    expect(readHookRuns(path)['pre-mcp']).toMatchObject({ at: new Date(base + 1).toISOString(), outcome: 'ask' });
    run(base + 2, 'ask', '3.21.0');
    expect(readHookRuns(path)['pre-mcp']).toMatchObject({ at: new Date(base + 2).toISOString(), cursor_version: '3.21.0' });
    run(base - 5_000, 'ask', '3.21.0');
    expect(recordedAt()).toBe(new Date(base - 5_000).toISOString());
    // One hook's record never holds back the other's.
    recordHookRun(path, 'session-start', { now: base, input: null, pluginVersion: '0.5.0', outcome: 'answered' });
    expect(readHookRuns(path)['session-start']?.at).toBe(new Date(base).toISOString());
  });
});
