/**
 * lib/agentstack/state/story.ts for a token that expires soon: with a stored refresh token the plugin renews it
 * (nothing to do, underway); with none, the one next step is to sign in again before it expires, a step the person
 * takes, even while a sign-in waits for approval.
 */
import { describe, expect, it } from 'vitest';
import { RENEWAL_STEP, SIGN_IN_COMMAND, stepFor, storyOf, type StoryFacts } from '../../lib/agentstack/state/story.js';

const facts = (over: Partial<StoryFacts> = {}): StoryFacts => ({
  account: { state: 'expiring', apiKey: false }, refreshable: false, mcpJson: '~/.cursor/mcp.json', mcpErrorAt: null, waiting: null, ...over,
});
const SIGN_IN_BEFORE = `Sign in again with ${SIGN_IN_COMMAND} before it expires.`;

describe('expiring', () => {
  it('no refresh token stored: sign in again before it expires, a step for the person (not underway)', () => {
    expect(storyOf(facts())).toEqual({
      state: 'expiring', word: expect.any(String),
      truth: 'The token expires soon and no refresh token is stored to renew it.',
      next: SIGN_IN_BEFORE, underway: false,
    });
    expect(stepFor('expiring')).toBe(SIGN_IN_BEFORE);
  });

  it('no refresh token, and a sign-in waiting for approval: still sign in again before it expires', () => {
    const waiting = { url: 'https://agentstack.example/device', code: 'ABCD-EFGH', expiresAt: '2030-01-01T00:10:00Z' };
    expect(storyOf(facts({ waiting }))).toMatchObject({ next: SIGN_IN_BEFORE, underway: false });
  });

  it('a refresh token stored: the plugin renews it, nothing to do', () => {
    expect(storyOf(facts({ refreshable: true }))).toMatchObject({
      truth: 'The token expires soon; the stored refresh token renews it.', next: RENEWAL_STEP, underway: true,
    });
  });

  it('the step is the expiring one only: an expired token with no refresh token is signed in again, with no "before"', () => {
    expect(storyOf(facts({ account: { state: 'expired', apiKey: false } })).next).toBe(`Sign in again with ${SIGN_IN_COMMAND}.`);
  });
});
