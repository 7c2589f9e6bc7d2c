import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseArgsMessage } from '../../lib/platform/cli.js';

const messageFor = (args: string[], allowPositionals = false) => {
  try {
    parseArgs({ args, options: { scopes: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals });
  } catch (error) {
    return parseArgsMessage(error as Error & { code?: string });
  }
  throw new Error('parsed');
};

describe('usage errors in our own words', () => {
  it.each([
    [['--bogus'], true, 'unknown option --bogus'],
    [['--bogus'], false, 'unknown option --bogus'],
    [['--scopes'], false, '--scopes needs a value'],
    [['--json=1'], false, '--json takes no value'],
    [['extra'], false, 'unexpected argument "extra"'],
  ] as const)('%j (positionals %s): %s', (args, positionals, expected) => {
    const text = messageFor([...args], positionals);
    expect(text).toBe(expected);
    expect((text.match(/'/g) ?? []).length % 2).toBe(0);
    expect((text.match(/"/g) ?? []).length % 2).toBe(0);
  });
});
