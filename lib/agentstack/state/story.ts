/**
 * Each account state's story, decided once: its word (ACCOUNT_WORDS), one sentence of what is true, and one next
 * step — a command that exists and works in that state, or, where the plugin is already doing it (a renewal due, a
 * sign-in waiting for approval), what it is doing and the code to enter. Every view (`--status` text and JSON, the
 * session card, diagnose's account row and its report, `--logout`, the pre-MCP notice, `config`) renders these
 * strings; to change what a state says, change it here. Pure but for one fact decided once: where this copy of the
 * plugin is (plugin/root.ts), so every step names the scripts that exist on this machine.
 */
import { ACCOUNT_WORDS, type Account, type AccountState } from './account.js';
import { pluginCommand } from '../plugin/root.js';
import type { KeychainBlock } from '../credentials/storeFacts.js';

/** The sign-in script of the copy of the plugin that runs. */
export const DEVICE_CODE = pluginCommand('hooks/scripts/device-code.mjs');
/** config of the copy of the plugin that runs. */
export const CONFIG_COMMAND = pluginCommand('scripts/config.mjs');
/** How a person signs in, written one way everywhere: the slash command, or this copy's sign-in script. */
export const SIGN_IN_COMMAND = `/agentstack-authorize (or ${DEVICE_CODE})`;
/** Asks the server whether it accepts the token in mcp.json now. */
export const STATUS_ONLINE_COMMAND = `${DEVICE_CODE} --status --online`;
/** The sign-in as a next step. */
export const SIGN_IN_STEP = `Sign in with ${SIGN_IN_COMMAND}.`;
/** What happens to a token near or past its expiry when a refresh token is stored. */
export const RENEWAL_STEP = 'Nothing to do: the plugin renews the token at the next agent session start or AgentStack call.';
/** The agentstack entry removed by hand, a refresh token kept: session start restores it; --logout disconnects. */
export const RESTORE_STEP = `Nothing to do: the next agent session start restores the entry from the stored refresh token (no new sign-in); to disconnect instead, run ${DEVICE_CODE} --logout.`;
/** A refused token a stored refresh token renews: the same renewal, and how to see the server accept the new token. */
export const REFUSED_RENEWAL_STEP = `${RENEWAL_STEP.slice(0, -1)}; ${STATUS_ONLINE_COMMAND} then shows whether the server accepts it.`;

export interface StoryFacts {
  account: Pick<Account, 'state' | 'apiKey'>;
  /** A refresh token for this server is stored. */
  refreshable: boolean;
  /** mcp.json as a person names it (`~/…`). */
  mcpJson: string;
  /** Where mcp.json stops being JSON, when it does. */
  mcpErrorAt: { line: number; column: number } | null;
  /** The reader's message for an mcp.json that cannot be used (its home folder as `~`), when there is one. */
  mcpProblem?: string | null;
  /** A Device Code sign-in waiting for the person's approval (its code and page when they may be shown). */
  waiting: { url: string | null; code: string | null; expiresAt: string } | null;
  /** A keychain that stops renewal or a sign-in now (credentials/storeFacts.ts keychainBlock), as a view found it. */
  keychain?: KeychainBlock | null;
}

export interface Story {
  state: AccountState;
  word: string;
  /** One sentence of what is true. */
  truth: string;
  /** One next step; null when nothing is needed. */
  next: string | null;
  /** The next step is something the plugin is already doing (a renewal due, a sign-in waiting for approval). */
  underway: boolean;
}

function truthOf(f: StoryFacts): string {
  const at = f.mcpErrorAt ? ` (line ${f.mcpErrorAt.line}, column ${f.mcpErrorAt.column})` : '';
  switch (f.account.state) {
    case 'signed_in': return f.account.apiKey ? 'AgentStack calls go out with the API key in mcp.json.' : 'AgentStack calls go out with a valid token.';
    case 'expiring': return f.refreshable ? 'The token expires soon; the stored refresh token renews it.' : 'The token expires soon and no refresh token is stored to renew it.';
    case 'expired_renewable': return 'The token has expired; the stored refresh token renews it.';
    case 'expired': return 'The token has expired and no refresh token is stored to renew it.';
    case 'refused_renewable': return 'The server refused this token; the stored refresh token renews it.';
    case 'refused': return 'The server refused this token and no refresh token is stored to renew it.';
    case 'renewal_refused': return 'The server refused to renew the token (invalid_grant); the refresh token was removed and a new sign-in is needed.';
    case 'entry_removed': return `The agentstack entry is gone from ${f.mcpJson}; the stored refresh token restores it without a new sign-in.`;
    case 'signed_out': return 'You signed out of AgentStack on this machine.';
    case 'never_signed_in': return 'This machine has not signed in to AgentStack.';
    case 'unreadable': return firstSentence(f.mcpProblem) ?? `${f.mcpJson} ${at ? `is not valid JSON${at}` : 'cannot be read'}.`;
    case 'placeholder': return 'mcp.json holds a placeholder where the token goes, not a token.';
    case 'no_capabilities': return 'The API key in mcp.json grants no capabilities.';
    case 'other_server': return 'The credential in mcp.json was issued for another server than the one its entry points at.';
  }
}

/** "What is wrong." of a reader's "What is wrong. What to do." */
function firstSentence(text: string | null | undefined): string | null {
  return text ? /^(.*?\.)(?=\s|$)/.exec(text)?.[1] ?? text : null;
}

/** The step for a sign-in that waits for the person: where to enter which code. */
export function waitingStep(w: NonNullable<StoryFacts['waiting']>): string {
  const where = w.url ? `open ${w.url} and enter the code ${w.code ?? '(shown on that page)'}` : `run ${SIGN_IN_COMMAND} to see its code`;
  return `A sign-in is waiting for your approval: ${where} (until ${w.expiresAt}); Cursor picks up the new token by itself.`;
}

const sentence = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/** The next step where the keychain stops renewal or a sign-in: its fix, never a sign-in that would stop at once. */
function keychainStep(f: StoryFacts, b: KeychainBlock): { next: string | null; underway: boolean } | null {
  const state = f.account.state;
  if (state === 'unreadable') return null;
  const renewing = state === 'signed_in' || state === 'expiring' || state === 'expired_renewable' || state === 'refused_renewable';
  if (renewing && f.refreshable) {
    const then = state === 'signed_in' ? ' Renewal needs it before the token expires.' : ' The plugin then renews the token by itself.';
    return { next: `${sentence(b.problem)} ${b.fix ?? `Sign in again with ${SIGN_IN_COMMAND}.`}${b.fix ? then : ''}`, underway: false };
  }
  if (state === 'signed_in' || !b.signInStops || f.waiting) return null;
  return { next: keychainSignInStep(b), underway: false };
}

/** Where the keychain stops a sign-in: what is wrong, its fix, and the sign-in only after it. */
export function keychainSignInStep(b: KeychainBlock): string {
  return `${sentence(b.problem)} ${b.fix ?? ''}${b.fix ? ' ' : ''}Then sign in with ${SIGN_IN_COMMAND}.`;
}

function nextOf(f: StoryFacts): { next: string | null; underway: boolean } {
  const state = f.account.state;
  const blocked = f.keychain ? keychainStep(f, f.keychain) : null;
  if (blocked) return blocked;
  if (state === 'unreadable') {
    const where = f.mcpErrorAt ? `line ${f.mcpErrorAt.line}, column ${f.mcpErrorAt.column} of ${f.mcpJson}` : f.mcpJson;
    const fix = f.mcpErrorAt ? `Fix ${where}` : `Fix ${where} or move it aside`;
    return { next: f.refreshable ? `${fix}; no new sign-in is needed.` : `${fix}; the sign-in in it is kept.`, underway: false };
  }
  if (state === 'signed_in') return { next: null, underway: false };
  if (state === 'expired_renewable' || (state === 'expiring' && f.refreshable)) return { next: RENEWAL_STEP, underway: true };
  if (state === 'refused_renewable') return { next: REFUSED_RENEWAL_STEP, underway: true };
  if (state === 'entry_removed') return { next: RESTORE_STEP, underway: true };
  if (state === 'expiring') return { next: `Sign in again with ${SIGN_IN_COMMAND} before it expires.`, underway: false };
  if (f.waiting) return { next: waitingStep(f.waiting), underway: true };
  if (state === 'signed_out') return { next: `Sign in again with ${SIGN_IN_COMMAND} when you want AgentStack back.`, underway: false };
  if (state === 'never_signed_in') return { next: SIGN_IN_STEP, underway: false };
  if (state === 'other_server') return { next: `Sign in to this server with ${SIGN_IN_COMMAND}.`, underway: false };
  return { next: `Sign in again with ${SIGN_IN_COMMAND}.`, underway: false };
}

export function storyOf(f: StoryFacts): Story {
  // A refused renewal with the sign-in it started waiting: the word says both (the next step is approving its code).
  const word = f.account.state === 'renewal_refused' && f.waiting ? `${ACCOUNT_WORDS.renewal_refused}, sign-in waiting` : ACCOUNT_WORDS[f.account.state];
  return { state: f.account.state, word, truth: truthOf(f), ...nextOf(f) };
}

/** The next step of a state that needs no facts beyond itself (the card's sign-in decision). */
export function stepFor(state: AccountState): string | null {
  return storyOf({ account: { state, apiKey: false }, refreshable: false, mcpJson: '~/.cursor/mcp.json', mcpErrorAt: null, waiting: null }).next;
}

/** A step after why it is needed: "Why. Step." */
export function stepBecause(step: string, why: string): string {
  // A reason that is already a sentence (a message ending in a period) keeps its own period.
  return `${why[0]!.toUpperCase()}${why.slice(1)}${/[.!?]$/.test(why) ? '' : '.'} ${step}`;
}

/** The story as one or two lines of text: what is true, then the next step. */
export function storyText(story: Story): string {
  return story.next ? `${story.truth} ${story.next}` : story.truth;
}
