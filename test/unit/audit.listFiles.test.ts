import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listFiles } from '../../lib/commands/audit/readPlugin.js';
import { tempDir } from '../helpers/repo.js';

describe('which files of a plugin folder the audit reads', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => dir?.cleanup());

  it('skips dependencies, tests and a checkout\'s scratch output (mutation runs, their sandboxes, benchmark peers)', () => {
    dir = tempDir('agentstack-audit-list-');
    const files = ['commands/a.md', 'bench/notes.md', 'bench/.mutation/reports/x.json', 'bench/.peers/p.mjs', '.stryker-tmp/sandbox-1/commands/a.md',
      'node_modules/m/index.js', 'test/t.ts', 'coverage/c.json', '.scratch/s.txt', '.node-cache/n'];
    for (const file of files) {
      mkdirSync(join(dir.path, file, '..'), { recursive: true });
      writeFileSync(join(dir.path, file), 'x');
    }
    expect(listFiles(dir.path).sort()).toEqual(['bench/notes.md', 'commands/a.md']);
  });
});
