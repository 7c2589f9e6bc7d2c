import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { joinNegativeValues, parseArgsMessage } from '../../lib/platform/cli.js';
import { nodePastEndOfLife, supportedNodeMajor } from '../../lib/agentstack/plugin/nodeReleases.js';

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

describe('options that take a value', () => {
  const options = { limit: { type: 'string' }, project: { type: 'string' }, 'no-browser': { type: 'boolean' }, json: { type: 'boolean' } } as const;
  it('a negative number after one is its value (the option\'s own check judges it), nowhere else', () => {
    expect(joinNegativeValues(['--limit', '-3', '--json'], options)).toEqual(['--limit=-3', '--json']);
    expect(joinNegativeValues(['--json', '-3'], options)).toEqual(['--json', '-3']);
    expect(joinNegativeValues(['--', '--limit', '-3'], options)).toEqual(['--', '--limit', '-3']);
    expect(parseArgs({ args: joinNegativeValues(['--limit', '-3'], options), options, strict: true }).values.limit).toBe('-3');
  });
  it('another option where its value should be: "needs a value", not "takes no value"', () => {
    try {
      parseArgs({ args: ['--project', '--no-browser'], options, strict: true });
      throw new Error('parsed');
    } catch (error) {
      expect(parseArgsMessage(error as Error & { code?: string })).toBe('--project needs a value');
    }
  });
});

describe('Node past its end of life: one table', () => {
  it('Node 20 from 2026-04-30 on, with the oldest supported LTS to install', () => {
    expect(nodePastEndOfLife('20.20.2', Date.parse('2026-04-29T00:00:00Z'))).toBeNull();
    expect(nodePastEndOfLife('v20.20.2', Date.parse('2026-05-01T00:00:00Z'))).toEqual({ major: 20, endOfLife: '2026-04-30' });
    expect(nodePastEndOfLife('16.0.0', Date.now())).not.toBeNull();
    expect(nodePastEndOfLife('30.0.0', Date.now())).toBeNull();
    expect(supportedNodeMajor(Date.parse('2026-05-01T00:00:00Z'))).toBe(22);
  });
});
