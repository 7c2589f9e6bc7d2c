import { describe, expect, it } from 'vitest';
import {
  autoLoginOffTodo, CONNECT_TODO, SIGNED_OUT_TODO, FIX_FIRST_TODO, decideSignIn, signInTodo, type SignInFacts,
} from '../../lib/commands/sessionStart/decide.js';
import type { CredentialState } from '../../lib/agentstack/mcpJson/credential.js';

const RUNNING = { kind: 'running' as const, url: 'https://agentstack.tech/activate?user_code=WDJB-MJHT', code: 'WDJB-MJHT', expiresAt: '2026-12-01T10:00:00Z' };
const facts = (over: Partial<SignInFacts> = {}): SignInFacts => ({ state: 'expired', running: null, autoLoginOff: null, offline: false, signedOut: false, pin: { projectId: null }, ...over });

describe('decideSignIn: the table', () => {
  it.each<[string, Partial<SignInFacts>, ReturnType<typeof decideSignIn>]>([
    ['ok: nothing to do', { state: 'ok' }, { kind: 'none' }],
    ['ok with a flow running: still nothing', { state: 'ok', running: RUNNING }, { kind: 'none' }],
    ['unsigned: only the way to connect', { state: 'unsigned' }, { kind: 'tell', todo: CONNECT_TODO }],
    ['unsigned with a flow running: join it', { state: 'unsigned', running: RUNNING }, { kind: 'join', flow: RUNNING }],
    ['expired: start, keeping the pin', { pin: { projectId: 42 } }, { kind: 'start', projectId: 42 }],
    ['placeholder: start', { state: 'placeholder' }, { kind: 'start', projectId: null }],
    ['null_caps: start', { state: 'null_caps' }, { kind: 'start', projectId: null }],
    ['a flow running wins over starting', { running: RUNNING }, { kind: 'join', flow: RUNNING }],
    ['a flow running wins over auto-login off', { running: RUNNING, autoLoginOff: 'AGENTSTACK_DISABLE_AUTO_LOGIN=1' }, { kind: 'join', flow: RUNNING }],
    ['signed out: never a sign-in unasked, not even joining a running one', { signedOut: true, running: RUNNING }, { kind: 'tell', todo: SIGNED_OUT_TODO }],
    ['signed out but the credential works again: nothing to do', { signedOut: true, state: 'ok' }, { kind: 'none' }],
    ['auto-login off', { autoLoginOff: 'AGENTSTACK_DISABLE_AUTO_LOGIN=1' }, { kind: 'tell', todo: autoLoginOffTodo('AGENTSTACK_DISABLE_AUTO_LOGIN=1') }],
    ['auto-login off wins over offline', { autoLoginOff: 'AGENTSTACK_DISABLE_AUTO_LOGIN=1', offline: true }, { kind: 'tell', todo: autoLoginOffTodo('AGENTSTACK_DISABLE_AUTO_LOGIN=1') }],
    ['offline', { offline: true }, { kind: 'tell', todo: FIX_FIRST_TODO }],
    ['offline wins over a broken pin', { offline: true, pin: { error: 'bad pin' } }, { kind: 'tell', todo: FIX_FIRST_TODO }],
    ['a broken pin stops the start and says why', { pin: { error: 'AGENTSTACK_PROJECT_ID must be a project id' } },
      { kind: 'tell', todo: 'Automatic sign-in could not start: AGENTSTACK_PROJECT_ID must be a project id. Sign in with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).' }],
  ])('%s', (_name, over, expected) => {
    expect(decideSignIn(facts(over))).toEqual(expected);
  });

  it('every state that is not ok leads somewhere (never silently nothing)', () => {
    for (const state of ['unsigned', 'placeholder', 'expired', 'null_caps'] as CredentialState[]) {
      expect(decideSignIn(facts({ state })).kind).not.toBe('none');
    }
  });
});

describe('signInTodo', () => {
  it('a flow with URL and code: where to go, what to enter, until when, and where the log is', () => {
    const line = signInTodo(RUNNING, '/c/agentstack-device.log');
    expect(line).toContain(RUNNING.url);
    expect(line).toContain('WDJB-MJHT');
    expect(line).toContain(RUNNING.expiresAt);
    expect(line).toContain('/c/agentstack-device.log');
  });
  it('a flow without a URL to show (not yet issued, or not on the server): only where to see it', () => {
    expect(signInTodo({ ...RUNNING, url: null }, '/log')).toBe('A sign-in is starting in another window; run /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs) to see its code.');
    expect(signInTodo({ ...RUNNING, code: null }, '/log')).not.toContain('WDJB');
  });
  it('a start that failed: the manual way and why', () => {
    expect(signInTodo({ kind: 'failed', message: 'HTTP 503' }, '/log')).toBe('Automatic sign-in could not start: HTTP 503. Sign in with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).');
    // A reason that is a sentence of its own keeps its one period.
    expect(signInTodo({ kind: 'failed', message: 'the keyring is locked. Unlock it, then sign in again.' }, '/log')).toBe('Automatic sign-in could not start: the keyring is locked. Unlock it, then sign in again. Sign in with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).');
  });
});
