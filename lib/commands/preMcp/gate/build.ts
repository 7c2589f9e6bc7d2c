/**
 * Compiles the pre-MCP gate (gate.ts) after a full check, when the state allows one: a readable snapshot, readable
 * rules, a Device Code credential that works (or none: Connect), a token not yet due for renewal. It is written only
 * when no source changed while it was compiled (the stamps taken before the sources were read match the ones taken
 * after), so a concurrent sign-in, refresh or `config set` can only make it stale, never wrong.
 */
import { writeFileAtomic } from '../../../platform/fs/secureFile.js';
import { REFRESH_WINDOW_MS, bearerOf, classifyCredential, type McpConfig } from '../../../agentstack/mcpJson/credential.js';
import { recordedExpiry } from '../../../agentstack/auth/tokenFacts.js';
import { grantedCaps } from '../../../agentstack/auth/scopes.js';
import type { SnapshotIndex, SnapshotRead } from '../../../agentstack/snapshot/actionIndex.js';
import type { CursorPaths } from '../../../agentstack/server/paths.js';
import { isNoPolicy, type Policy, type PolicyInEffect } from '../../../agentstack/policy/effective.js';
import { decidePolicy, ruleAskOf } from '../policy.js';
import { serializeAsks, type RuleAsk } from './ask.js';
import { packNameIndex } from '../suggest.js';
import { canRenew } from '../../../agentstack/renewal/due.js';
import { autoLoginDisabled, journalOn } from '../../../agentstack/settings/keys.js';
import { credentialFacts, unusableReason } from '../credentialNotice.js';
import { sameStamps } from '../../../platform/fs/fileStamps.js';
import { GATE_VERSION, gateEnv, listable, serializeGate, serializeGateNames, stampSources, type Gate, type GateNames, type Stamp } from './gate.js';

/** How long a gate for a credential that never expires (an API key, no credential) may be used before it is compiled again. */
export const GATE_MAX_AGE_MS = 3_600_000;

/** The actions whose step the hook has no opinion on: known, its capability granted, approved, no rule about it. Pure. */
export function neutralActions(index: SnapshotIndex, claims: Record<string, unknown> | null, policy: PolicyInEffect): string[] {
  const caps = grantedCaps(claims);
  const out: string[] = [];
  for (const action of index.names()) {
    if (!listable(action) || index.unapproved.has(action)) continue;
    const cap = index.capOf(action);
    if (cap && caps && !caps.has(cap)) continue;
    if (decidePolicy(policy, [{ action, known: true, cap }]).permission) continue;
    out.push(action);
  }
  return out;
}

/**
 * The actions whose step only the person's rules have an opinion on, and that opinion is `ask`: known, its capability
 * granted, approved, and no rule denies it. A call of such steps (and neutral ones) gets the rules' ask. Pure.
 */
export function ruleAsks(index: SnapshotIndex, claims: Record<string, unknown> | null, policy: Policy): RuleAsk[] {
  const caps = grantedCaps(claims);
  const out: RuleAsk[] = [];
  for (const action of index.names()) {
    if (!listable(action) || index.unapproved.has(action)) continue;
    const cap = index.capOf(action);
    if (cap && caps && !caps.has(cap)) continue;
    const ask = ruleAskOf(policy, { action, known: true, cap });
    if (ask) out.push(ask);
  }
  return out;
}

export interface GateInput {
  paths: CursorPaths;
  /** The process environment (its AGENTSTACK_* variables are the gate's key) and the one with the settings applied. */
  env: NodeJS.ProcessEnv;
  settingsEnv: NodeJS.ProcessEnv;
  /** The stamps taken before any source was read. */
  stamps: Stamp[] | null;
  config: McpConfig;
  claims: Record<string, unknown> | null;
  policy: PolicyInEffect;
  bases: string[];
  /** Reads the whole snapshot (only when a gate is compiled). */
  readSnapshot: () => SnapshotRead;
  now: number;
  plugin: string;
}

/** The gate for this state and its names file, or null when the state allows none. */
export function compileGate(input: GateInput): { gate: Gate; names: GateNames } | null {
  // Under the organization's capability map no gate is compiled: its stamps do not cover the map, so each AgentStack
  // call is checked in full (the organization's copy, where in place, does that anyway).
  if (input.stamps === null || input.policy.kind !== 'ok' || input.policy.policy.managed?.capabilities) return null;
  const { facts, stored } = credentialFacts({ paths: input.paths, config: input.config, env: input.settingsEnv, now: input.now });
  if (unusableReason(facts) !== null) return null;
  const view = classifyCredential({ config: input.config, storedExpiresAt: facts.refreshable ? stored?.expires_at ?? null : stored ? null : recordedExpiry(input.paths.token, bearerOf(input.config)), now: input.now });
  // Until the token expires (a call then may need the credential notice); its renewal is started from `renewAt` on.
  const until = view.expiresAtMs === null ? input.now + GATE_MAX_AGE_MS : Math.min(view.expiresAtMs, input.now + GATE_MAX_AGE_MS);
  if (until <= input.now) return null;
  const renewable = view.expiresAtMs !== null && canRenew({ credential: view, refreshable: facts.refreshable && !facts.refused, belongs: facts.belongs, signedOut: facts.signedOut, autoLoginOff: autoLoginDisabled(input.settingsEnv) });
  const snapshot = input.readSnapshot();
  if (snapshot.kind !== 'ok') return null;
  const neutral = neutralActions(snapshot.index, input.claims, input.policy);
  const known = snapshot.index.names().filter(listable);
  // With no per-action rules and every entry of the server's list read, an action the snapshot lacks is denied for
  // that alone (decide.ts), whatever the call's other steps: the gate can give that deny.
  const denies = isNoPolicy(input.policy.policy) && snapshot.index.skipped === 0;
  const asks = isNoPolicy(input.policy.policy) ? [] : ruleAsks(snapshot.index, input.claims, input.policy.policy);
  // The names file's tag: only for telling this gate's names file from another's, not a secret.
  const tag = `${input.now.toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
  return {
    gate: {
      v: GATE_VERSION, plugin: input.plugin, env: gateEnv(input.env), until, renewAt: renewable ? view.expiresAtMs! - REFRESH_WINDOW_MS : null, stamps: input.stamps, bases: input.bases,
      denies, journal: journalOn(input.settingsEnv), names: tag, neutral: `\n${neutral.join('\n')}\n`,
    },
    names: { known: `\n${known.join('\n')}\n`, index: Buffer.from(packNameIndex(known).buffer).toString('base64'), asks: serializeAsks(asks) },
  };
}

/**
 * Compiles and writes the gate, its names file first (a gate is never read beside a names file older than itself; a
 * names file newer than its gate bears another tag); false (never a throw) when none was written.
 */
export function refreshGate(input: GateInput): boolean {
  try {
    const compiled = compileGate(input);
    if (!compiled || !sameStamps(stampSources(input.paths), input.stamps)) return false;
    writeFileAtomic(input.paths.gateNames, serializeGateNames(compiled.gate.names, compiled.names), { durable: false });
    writeFileAtomic(input.paths.gate, serializeGate(compiled.gate), { durable: false });
    return true;
  } catch {
    return false;
  }
}
