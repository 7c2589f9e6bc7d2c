/**
 * The folder named on the command line: a missing path, a file, or a part that cannot be read while the folder is
 * walked gives one line naming the path and what is wrong; any other error is a bug and is thrown as is.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditTarget, fsErrorLine, targetProblem } from '../../lib/commands/audit/target.js';
import { hostedMcp, writeFixture } from '../helpers/pluginFixtures.js';
import { tempDir } from '../helpers/repo.js';

const tmp = tempDir('agentstack-audit-target-');
afterAll(() => tmp.cleanup());

const fsError = (code: string, path?: string) => Object.assign(new Error(`${code}: failed`), { code, ...(path ? { path } : {}) });

describe('audit target', () => {
  it('a folder that can be listed is audited', () => {
    const dir = writeFixture(join(tmp.path, 'plugin'), hostedMcp());
    expect(targetProblem(dir)).toBeNull();
    const target = auditTarget(dir);
    expect(target.kind).toBe('report');
  });

  it('a missing path and a file are one line each, naming the path', () => {
    expect(targetProblem(join(tmp.path, 'nothing'))).toBe(`${join(tmp.path, 'nothing')} does not exist`);
    mkdirSync(join(tmp.path, 'f'));
    writeFileSync(join(tmp.path, 'f/plugin.json'), '{}');
    expect(auditTarget(join(tmp.path, 'f/plugin.json'))).toEqual({ kind: 'unusable', line: `${join(tmp.path, 'f/plugin.json')} is a file, not a plugin folder: give the folder that holds .cursor-plugin/` });
  });

  it('reads a file-system error as one line about the path it names, and leaves other errors alone', () => {
    expect(fsErrorLine(fsError('EACCES', '/p/skills/private'), '/p')).toBe('/p/skills/private cannot be read (permission denied)');
    expect(fsErrorLine(fsError('EPERM'), '/p')).toBe('/p cannot be read (not permitted)');
    expect(fsErrorLine(fsError('EIO'), '/p')).toBe('/p cannot be read (EIO)');
    expect(fsErrorLine(new TypeError('x is undefined'), '/p')).toBeNull();
    expect(fsErrorLine(null, '/p')).toBeNull();
  });
});
