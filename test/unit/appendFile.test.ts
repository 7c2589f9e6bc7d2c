import { spawnSync } from 'node:child_process';
import { closeSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRegularFileForAppend } from '../../lib/platform/fs/secureFile.js';
import { tempDir } from '../helpers/repo.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir(); });
afterEach(() => dir.cleanup());

const append = (path: string, text: string, maxBytes?: number) => {
  const fd = openRegularFileForAppend(path, { maxBytes });
  try { writeSync(fd, text); } finally { closeSync(fd); }
};

describe('openRegularFileForAppend', () => {
  it('creates 0600, appends, starts afresh past maxBytes, tightens a wider file', () => {
    const path = join(dir.path, 'sub', 'x.log');
    append(path, 'a');
    append(path, 'b');
    expect(readFileSync(path, 'utf8')).toBe('ab');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    append(path, 'c', 1);
    expect(readFileSync(path, 'utf8')).toBe('c');
    writeFileSync(path, 'd', { mode: 0o644 });
    append(path, 'e');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
  it('refuses a symlink (its target untouched) and a FIFO (without blocking)', () => {
    const target = join(dir.path, 'target');
    writeFileSync(target, 'keep', { mode: 0o644 });
    const link = join(dir.path, 'link.log');
    symlinkSync(target, link);
    expect(() => append(link, 'x')).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(target).mode & 0o777).toBe(0o644);
    const fifo = join(dir.path, 'fifo.log');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => append(fifo, 'x')).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
  });
});
