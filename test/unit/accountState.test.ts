import { describe, expect, it } from 'vitest';
import { ACCOUNT_STATES, ACCOUNT_WORDS, accountOf, accountText, expiryText, type AccountFacts } from '../../lib/agentstack/state/account.js';
import { projectOf, projectText } from '../../lib/agentstack/state/project.js';
import { maskEmails, maskHome } from '../../lib/platform/text/personal.js';

const NOW = Date.parse('2026-12-03T18:00:00Z');
const facts = (over: Partial<AccountFacts> = {}): AccountFacts => ({
  readable: true, entry: true, credential: 'ok', apiKey: false, expiresAtMs: NOW + 3600_000, refreshable: true, refused: false, belongs: true, signedOut: false, now: NOW, ...over,
});

describe('accountOf: one state from the facts', () => {
  it.each<[string, Partial<AccountFacts>, string]>([
    ['a valid token', {}, 'signed_in'],
    ['an API key', { apiKey: true, expiresAtMs: null }, 'signed_in'],
    ['a token inside the refresh window', { expiresAtMs: NOW + 60_000 }, 'expiring'],
    ['an expired token with a refresh token', { credential: 'expired', expiresAtMs: NOW - 1 }, 'expired_renewable'],
    ['an expired token with nothing to renew it', { credential: 'expired', expiresAtMs: NOW - 1, refreshable: false }, 'expired'],
    ['a token the server answered 401, a refresh token stored', { refused: true }, 'refused_renewable'],
    ['a token the server answered 401, nothing to renew it', { refused: true, refreshable: false }, 'refused'],
    ['an expired token the server refused, a refresh token stored', { credential: 'expired', refused: true }, 'refused_renewable'],
    ['an expired token the server refused, nothing to renew it', { credential: 'expired', refused: true, refreshable: false }, 'refused'],
    ['no credential after a sign-out', { credential: 'unsigned', signedOut: true }, 'signed_out'],
    ['no credential, never signed out', { credential: 'unsigned' }, 'never_signed_in'],
    ['no entry at all', { entry: false, credential: 'unsigned', refreshable: false }, 'never_signed_in'],
    ['the entry removed by hand, a refresh token kept', { entry: false, credential: 'unsigned', refreshable: true }, 'entry_removed'],
    ['the entry removed by hand after a sign-out', { entry: false, credential: 'unsigned', refreshable: true, signedOut: true }, 'signed_out'],
    ['a renewal refused (invalid_grant), the token expired', { credential: 'expired', refused: true, renewalRefused: true, refreshable: false }, 'renewal_refused'],
    ['an mcp.json that cannot be read', { readable: false }, 'unreadable'],
    ['a placeholder', { credential: 'placeholder' }, 'placeholder'],
    ['a key with no capabilities', { credential: 'null_caps' }, 'no_capabilities'],
    ['a credential issued for another server', { belongs: false }, 'other_server'],
  ])('%s: %s', (_what, over, state) => {
    expect(accountOf(facts(over)).state).toBe(state);
  });

  it('every state has one word, and the words differ', () => {
    const words = ACCOUNT_STATES.map((s) => ACCOUNT_WORDS[s]);
    expect(new Set(words).size).toBe(ACCOUNT_STATES.length);
    expect(accountText({ state: 'expiring', apiKey: false }, 'a@b.c')).toBe('signed in as a@b.c, token expiring');
    expect(accountText({ state: 'signed_out', apiKey: false }, null)).toBe('signed out');
  });

  it('never says "valid until" a time already past, even by seconds', () => {
    expect(expiryText('2026-12-03T17:59:40Z', NOW)).toBe('expired at 2026-12-03T17:59:40Z');
    expect(expiryText('2026-12-03T18:00:00Z', NOW)).toBe('expired at 2026-12-03T18:00:00Z');
    expect(expiryText('2026-12-03T18:00:20Z', NOW)).toBe('valid until 2026-12-03T18:00:20Z (less than a minute left)');
    expect(expiryText(null, NOW)).toBe('no expiry known');
  });
});

describe('projectOf: where calls go, and why', () => {
  const none = { projectId: null, source: 'none' as const };
  it('the header calls carry is the pin; else the account default, by number when the token names it', () => {
    expect(projectText(projectOf({ header: 42, pin: { projectId: 42, source: 'file' }, claimed: 7 }))).toBe('42 (pinned)');
    expect(projectText(projectOf({ header: 42, pin: { projectId: 42, source: 'env' }, claimed: null }))).toBe('42 (pinned by AGENTSTACK_PROJECT_ID)');
    expect(projectText(projectOf({ header: null, pin: none, claimed: 7 }))).toBe("7 (your account's default)");
    expect(projectText(projectOf({ header: null, pin: none, claimed: null }))).toBe("your account's default");
  });
  it('a pin that calls do not carry yet applies from the next sign-in, and says so', () => {
    expect(projectText(projectOf({ header: null, pin: { projectId: 9, source: 'file' }, claimed: null }))).toBe("your account's default; 9 is pinned for your next sign-in");
  });
});

describe('personal data in a report', () => {
  it('masks e-mail addresses and the home folder at a path boundary only', () => {
    expect(maskEmails('who: alice.smith@example.test, bob@x.io')).toBe('who: a***@example.test, b***@x.io');
    expect(maskHome('/home/al/x and /home/alice/y and "/home/al"', '/home/al')).toBe('~/x and /home/alice/y and "~"');
    expect(maskHome('/a/b', '/')).toBe('/a/b');
  });
  it('masks a quoted local part, an address literal and the fullwidth at sign, in plain text and in JSON', () => {
    const cases: Array<[string, string, string]> = [
      ['"alice smith"@example.com', '"a***"@example.com', 'alice smith'],
      ['alice@[127.0.0.1]', 'a***@[127.0.0.1]', 'alice'],
      ['alice@[IPv6:::1]', 'a***@[IPv6:::1]', 'alice'],
      ['alice\uff20example.com', 'a***\uff20example.com', 'alice'],
      ['alice\ufe6bexample.com', 'a***\ufe6bexample.com', 'alice'],
    ];
    for (const [address, masked, name] of cases) {
      expect(maskEmails(`who: ${address}, then`)).toBe(`who: ${masked}, then`);
      const json = JSON.stringify({ who: address });
      expect(maskEmails(json)).not.toContain(name);
      expect(maskEmails(json)).toContain('***');
    }
    expect(maskEmails('pkg@1.2.3 and "quoted" text')).toBe('pkg@1.2.3 and "quoted" text');
  });
});
