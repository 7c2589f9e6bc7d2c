import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayLines, displayText, hasHiddenCharacters } from '../../lib/platform/text/displayText.js';
import { isDisplayableUserCode } from '../../lib/agentstack/signIn/userCode.js';
import { isOpenableUrl } from '../../lib/agentstack/signIn/browser.js';

describe('displayText: the one sanitizer for shown text', () => {
  it('removes C0/C1 controls, bidi controls and zero-width characters, one space per run', () => {
    expect(displayText('a\u001b[2Jb')).toBe('a [2Jb');
    expect(displayText('x\u202ey\u200bz\u2066w\u2069\ufeff')).toBe('x y z w');
    expect(displayText('a\u009b2J\u0085b')).toBe('a 2J b');
    expect(displayText('  a\n\tb  ')).toBe('a b');
  });
  it('caps the length in code points, never splitting a surrogate pair', () => {
    expect(displayText('x'.repeat(500), 10)).toBe(`${'x'.repeat(10)}…`);
    expect(displayText('😀'.repeat(5), 3)).toBe('😀😀😀…');
  });
  it('never leaves a hidden character and never grows past max + 1 (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 1, max: 100 }), (s, max) => {
      const out = displayText(s, max);
      expect(hasHiddenCharacters(out)).toBe(false);
      expect(Array.from(out).length).toBeLessThanOrEqual(max + 1);
    }));
  });
  it('displayLines keeps newlines and cleans each line', () => {
    expect(displayLines('a\u202eb\n- c\u0007')).toBe('a b\n- c');
  });
});

describe('user codes and URLs shown to a person', () => {
  it.each(['WDJB-MJHT', 'ABCD1234', 'abc def', 'X'])('%s is a displayable code', (code) => expect(isDisplayableUserCode(code)).toBe(true));
  it.each(['', ' AB', 'AB ', 'A'.repeat(33), 'AB\u001bCD', 'ÄBC', 'AB\u200bCD', 5, null])('%s is not', (code) => expect(isDisplayableUserCode(code)).toBe(false));
  it('a URL with a bidi or zero-width character is not openable; the plain one is', () => {
    expect(isOpenableUrl('https://agentstack.tech/activate', 'https://agentstack.tech/mcp')).toBe(true);
    expect(isOpenableUrl('https://agentstack.tech/activate\u202egpj', 'https://agentstack.tech/mcp')).toBe(false);
    expect(isOpenableUrl('https://agentstack.tech/acti\u200bvate', 'https://agentstack.tech/mcp')).toBe(false);
    expect(isOpenableUrl('https://agentstack.tech/\u0085', 'https://agentstack.tech/mcp')).toBe(false);
  });
});
