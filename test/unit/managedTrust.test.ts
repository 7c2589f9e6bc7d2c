/**
 * The managed file's trust on real files with real modes and owners (posixTrustProblem reads lstat/stat; the other
 * unit tests inject it), and the policy row `config list` and `--status` show: the stricter of the two, the same
 * preset the hook enforces.
 */
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settingsTable, applySettings } from '../../lib/agentstack/settings/effective.js';
import { posixTrustProblem, readManagedSettings } from '../../lib/agentstack/settings/managed.js';
import { policyInEffect } from '../../lib/agentstack/policy/effective.js';
import { tempDir } from '../helpers/repo.js';
import { notRunWhen } from '../helpers/notRun.js';

const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
if (!asRoot) console.warn('managedTrust.test: the real-file trust cases need root (files owned by root); skipped here');

let tmp: ReturnType<typeof tempDir>;
let folder: string;
let file: string;
beforeEach(() => {
  tmp = tempDir('agentstack-managed-trust-');
  folder = join(tmp.path, 'etc-agentstack');
  mkdirSync(folder);
  chmodSync(folder, 0o755);
  file = join(folder, 'managed-settings.json');
  writeFileSync(file, JSON.stringify({ policy: 'readonly', 'base-url': 'https://org.example.test' }));
  chmodSync(file, 0o644);
});
afterEach(() => tmp.cleanup());

describe('posixTrustProblem on real files (root)', notRunWhen(!asRoot && 'it needs root on Linux (it gives files to other users)'), () => {
  it('root\'s 0644 file in root\'s 0755 folder is trusted', () => {
    expect(posixTrustProblem(file)).toBeNull();
    const read = readManagedSettings({ path: file, platform: 'linux' });
    expect(read.trusted).toBe(true);
    expect([...read.keys].sort()).toEqual(['base-url', 'policy']);
  });

  it('group-writable (0664): not trusted, naming its group; only its rules apply', () => {
    chmodSync(file, 0o664);
    expect(posixTrustProblem(file)).toBe(`the file ${file} can be written by its group (mode 0664)`);
    expect(readManagedSettings({ path: file, platform: 'linux' })).toMatchObject({ trusted: false, keys: ['policy'] });
  });

  it('writable by every user (0666), or in a group-writable folder: not trusted', () => {
    chmodSync(file, 0o666);
    expect(posixTrustProblem(file)).toBe(`the file ${file} can be written by every user (mode 0666)`);
    chmodSync(file, 0o644);
    chmodSync(folder, 0o775);
    expect(posixTrustProblem(file)).toBe(`its folder ${folder} can be written by its group (mode 0775)`);
  });

  it('owned by another user, or a symbolic link: not trusted', () => {
    chownSync(file, 65534, 65534);
    expect(posixTrustProblem(file)).toBe(`the file ${file} belongs to uid 65534, not root`);
    chownSync(file, 0, 0);
    const link = join(folder, 'link.json');
    symlinkSync(file, link);
    expect(posixTrustProblem(link)).toBe(`the file ${link} is a symbolic link`);
  });
});

describe('the policy row when the managed file sets policy: the stricter of the two, as the hook enforces it', () => {
  const cases: Array<[string, string, string]> = [
    ['confirm-writes', 'default', 'confirm-writes'],
    ['default', 'readonly', 'readonly'],
    ['readonly', 'confirm-writes', 'readonly'],
    ['confirm-writes', 'readonly', 'readonly'],
  ];
  it.each(cases)('organization %s, person %s: %s', (theirs, mine, shown) => {
    writeFileSync(file, JSON.stringify({ policy: theirs }));
    const cursor = join(tmp.path, 'cursor');
    mkdirSync(cursor);
    writeFileSync(join(cursor, 'agentstack-settings.json'), JSON.stringify({ policy: mine }));
    const env = { AGENTSTACK_CURSOR_DIR: cursor, HOME: tmp.path };
    const managed = { path: file, trustProblem: () => null };
    const row = settingsTable(env, { managed }).rows.find((r) => r.key === 'policy');
    expect(row).toMatchObject({ value: shown, origin: 'managed' });
    const applied = applySettings(env, undefined, { managed });
    const enforced = policyInEffect(applied.rows, applied.file, applied.managed);
    expect(enforced).toMatchObject({ kind: 'ok', policy: { preset: shown } });
  });
});
