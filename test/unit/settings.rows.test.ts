/**
 * The rows `config list` and diagnose show: every row names its key, shows the value as it is used (trimmed), and a
 * refused pin from the environment is shown as given (trimmed, bounded) beside its problem.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectRow, settingsTable } from '../../lib/agentstack/settings/effective.js';
import { writeFileAtomic } from '../../lib/platform/fs/secureFile.js';
import { runStatus } from '../../lib/commands/deviceCode/status.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('agentstack-settings-rows-'); });
afterEach(() => tmp.cleanup());
const env = (extra: Record<string, string> = {}) => ({ AGENTSTACK_CURSOR_DIR: tmp.path, ...extra });

describe('setting rows', () => {
  it('a value from the environment is shown trimmed, as it is used', () => {
    const row = settingsTable(env({ AGENTSTACK_BASE_URL: '  https://stack.example.com  ' })).rows.find((r) => r.key === 'base-url')!;
    expect(row).toMatchObject({ origin: 'env', source: 'AGENTSTACK_BASE_URL', value: 'https://stack.example.com' });
    expect(row.problem).toBeUndefined();
  });

  it('the project row is keyed "project" whatever its origin: none, the pin file, the environment, a refused value', () => {
    const pin = join(tmp.path, 'agentstack-project');
    expect(projectRow(env(), pin).key).toBe('project');
    writeFileAtomic(pin, '42\n');
    expect(projectRow(env(), pin)).toMatchObject({ key: 'project', origin: 'settings', value: '42' });
    expect(projectRow(env({ AGENTSTACK_PROJECT_ID: '7' }), pin)).toMatchObject({ key: 'project', origin: 'env', value: '7' });
    writeFileAtomic(pin, 'not a pin\n');
    expect(projectRow(env(), pin)).toMatchObject({ key: 'project', origin: 'default', value: null, problem: expect.any(String) });
    expect(settingsTable(env()).rows.map((r) => r.key)).toContain('project');
  });

  it('a refused pin from the environment is shown trimmed beside its problem, with the variable named', () => {
    const row = projectRow(env({ AGENTSTACK_PROJECT_ID: '  abc  ' }), join(tmp.path, 'agentstack-project'));
    expect(row).toMatchObject({ key: 'project', origin: 'env', source: 'AGENTSTACK_PROJECT_ID', problem: expect.stringContaining('AGENTSTACK_PROJECT_ID') });
    expect(row.value).toContain('abc');
    expect(row.value).not.toMatch(/\s/);
  });

  it('a pin file that cannot be read (a folder in its place) is a problem on the row, never a throw, and shows no value', () => {
    const pin = join(tmp.path, 'agentstack-project');
    mkdirSync(pin);
    const row = projectRow(env(), pin);
    expect(row).toMatchObject({ key: 'project', problem: expect.stringMatching(/EISDIR/) });
    expect(row.value || null).toBeNull();
  });

  it('a value from the settings file keeps its origin in the views: credential_store says settings, not the variable it stands for', async () => {
    writeFileAtomic(join(tmp.path, 'agentstack-settings.json'), JSON.stringify({ 'credential-store': 'file' }));
    let out = '';
    await runStatus({ env: env({ HOME: tmp.path }), json: true, online: false, streams: { stdout: { write: (s: string) => { out += s; return true; } } as NodeJS.WritableStream } });
    expect(JSON.parse(out).credential_store).toMatchObject({ setting: 'file', set_by: 'settings', source: join(tmp.path, 'agentstack-settings.json') });
    expect(settingsTable(env()).rows.find((r) => r.key === 'credential-store')).toMatchObject({ origin: 'settings' });
  });
});
