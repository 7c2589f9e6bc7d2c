/** The hooks' fast paths read text without compiling a pattern; they give what the patterns give. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../lib/agentstack/plugin/hookRunRecord.js';
import { cardAt } from '../../lib/commands/sessionStart/quick.js';
import { expiryText } from '../../lib/agentstack/state/account.js';

const anyText = fc.string({ unit: 'binary', maxLength: 60 });

describe('text on the hooks\' fast paths, without a pattern', () => {
  it('a run record\'s fields: printable ASCII only, clipped, as the pattern keeps them', () => {
    const byPattern = (v: string) => v.replace(/[^\x20-\x7e]/g, '').trim().slice(0, 40) || null;
    fc.assert(fc.property(anyText, fc.string({ maxLength: 60 }), (odd, plain) => {
      for (const value of [odd, plain]) {
        const record = recordOf({ at: '2026-12-06T09:00:00.000Z', cursor_version: value, outcome: value });
        expect(record?.cursor_version).toBe(byPattern(value));
        expect(record?.outcome).toBe(byPattern(value) ?? 'unknown');
      }
    }), { numRuns: 2000 });
  });

  it('a quiet start\'s card: the first token line said anew, as the pattern replaced it; a card with none is left as it is', () => {
    const line = fc.oneof(fc.constantFrom('- Token: valid until x', '- Token: ', '- Account: a', ' - Token: indented', 'x- Token: inline', ''), fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n\u2028\u2029]/g, ' ')));
    const now = Date.parse('2026-12-06T09:00:00Z');
    const expiresAt = '2026-12-06T10:00:00Z';
    fc.assert(fc.property(fc.array(line, { maxLength: 6 }), fc.boolean(), (lines, endsWithNewline) => {
      const card = `${lines.join('\n')}${endsWithNewline ? '\n' : ''}`;
      const byPattern = card.replace(/^- Token: .*$/m, `- Token: ${expiryText(expiresAt, now)}`);
      expect(cardAt({ card, expiresAt }, now)).toBe(byPattern);
      expect(cardAt({ card, expiresAt: null }, now)).toBe(card);
    }), { numRuns: 2000 });
  });
});
