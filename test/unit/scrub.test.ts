import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../lib/platform/text/scrub.js';

describe('scrubSecrets', () => {
  const token = `eyJ${'a1b2c3d4e5'.repeat(20)}XYZ`;

  it('masks a secret echoed whole, in part, or twice, and leaves other text alone', () => {
    const text = `signed in as ${token}; also ${token.slice(40, 90)} and ${token.slice(5, 30)}!`;
    const out = scrubSecrets(text, [token]);
    for (let i = 0; i + 12 <= token.length; i += 1) expect(out).not.toContain(token.slice(i, i + 12));
    expect(out.startsWith('signed in as ')).toBe(true);
    expect(out.endsWith('!')).toBe(true);
  });

  it('masks a secret of 8 to 11 characters where it occurs whole', () => {
    expect(scrubSecrets('bad client s3cr3t-xyz here', ['s3cr3t-xyz'])).toBe('bad client **** here');
  });

  it('ignores short or missing secrets and leaves clean text unchanged', () => {
    expect(scrubSecrets('signed in as dev@agentstack.test', [token, null, undefined, 'short'])).toBe('signed in as dev@agentstack.test');
  });
});
