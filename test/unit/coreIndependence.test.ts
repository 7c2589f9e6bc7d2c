/** The reference core shares only the tool name with the plugin, so a wrong guess in the plugin cannot hide behind the same guess in the core. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

describe('core/ is independent of the plugin', () => {
  it('imports nothing from lib/ but the tool names', () => {
    const imports: string[] = [];
    for (const file of readdirSync(join(REPO_ROOT, 'core')).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(REPO_ROOT, 'core', file), 'utf8');
      for (const m of text.matchAll(/from\s+'(\.\.\/lib\/[^']+)'/g)) imports.push(m[1]!);
    }
    expect([...new Set(imports)]).toEqual(['../lib/agentstack/server/toolNames.js']);
  });
});
