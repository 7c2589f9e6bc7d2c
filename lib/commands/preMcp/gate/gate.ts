/**
 * The pre-MCP hook's fast path. What an execute call's answer depends on (the snapshot, the token's capabilities,
 * the person's rules, the credential's state) changes rarely, so it is compiled into one small gate file
 * (`agentstack-gate.json`, build.ts) when it changes, and a call reads that file instead of the five it came
 * from. The gate holds only while every source file is as it was when the gate was compiled (size, times, inode),
 * the environment's AGENTSTACK_* variables are the same, the plugin version is the same, and the token is not yet
 * due for renewal. It names the actions a call may use with no opinion from the hook; a call whose every step is
 * one of them, named in a form the contract defines, gets `{}`. When the full check would deny a call for naming an
 * action the snapshot lacks, whatever else it holds (no per-action rules, a snapshot read whole), the gate says so,
 * and that deny is given from the names file beside it, which lists every action (deny.ts). Anything else (a stale or
 * unreadable gate, another action, a call to check) goes the full way: the fast path answers only what the full
 * check would.
 */
import { envFingerprint, sameStamps, stampFiles, type Stamp } from '../../../platform/fs/fileStamps.js';
import { readStateTextIfExists } from '../../../platform/fs/stateFile.js';
import { STATE_FILE_MAX_BYTES } from '../../../agentstack/server/fileLimits.js';
import type { CursorPaths } from '../../../agentstack/server/paths.js';
import { managedStamps } from '../../../agentstack/settings/managedPath.js';
import { callIdentity, isAgentStackCall, namesExecuteTool } from '../../../agentstack/server/callIdentity.js';
import { factsOf, recordChanged, recordOf } from '../../../agentstack/plugin/hookRunRecord.js';
import { isObject } from '../../../platform/text/isObject.js';
import { asksOf, type RuleAsk } from './ask.js';

export const GATE_VERSION = 4;

/**
 * The files' layout. The gate: one JSON line (everything but the list), then the neutral actions as plain lines after
 * a marker no action name can hold (names with a NUL or a newline are never listed); the fast path parses only the
 * first line, and finds an action by one search in the text, with no JSON string to decode. Beside it, read only
 * for a call the gate does not answer `{}`, the names file: the tag of its gate, every action as plain lines, and the
 * suggestions' index of them as one base64 line. A call to a neutral action reads ~70 KB for a 5,000-action
 * snapshot rather than three times that (reading and decoding cost ~10 us per KB on a slow machine).
 */
const NEUTRAL_MARK = '\n\u0000neutral\n';
const KNOWN_MARK = '\n\u0000known\n';
const INDEX_MARK = '\n\u0000index\n';
const ASKS_MARK = '\n\u0000asks\n';

/** A listable action name: one that cannot reach across lines or markers. */
export const listable = (action: string): boolean => !action.includes('\n') && !action.includes('\u0000');

/** Above this many names to look up, a list is made a Set once rather than searched for each name. */
const SEARCHES = 32;

/**
 * Whether a list (names each between newlines) holds a name: one search in the text per name for a few names, a Set
 * built once for many (a call of 40,000 steps would otherwise search a 75 KB list 40,000 times).
 */
export function listLookup(list: string, names: number): (name: string) => boolean {
  if (names <= SEARCHES) return (name) => listable(name) && list.includes(`\n${name}\n`);
  const set = new Set(list.split('\n'));
  set.delete('');
  return (name) => listable(name) && set.has(name);
}

/** The gate file's text. */
export function serializeGate(gate: Gate): string {
  const { neutral, ...header } = gate;
  return `${JSON.stringify(header)}${NEUTRAL_MARK}${neutral.slice(1)}`;
}

/** The names file's text, tagged for the gate whose `names` is `tag`. */
export function serializeGateNames(tag: string, names: GateNames): string {
  return `${tag}${KNOWN_MARK}${names.known.slice(1)}${INDEX_MARK.slice(1)}${names.index}${ASKS_MARK}${names.asks}`;
}

/** The files a gate is compiled from, in the order of its stamps. */
export const GATE_SOURCES = ['mcpJson', 'capabilities', 'capabilitiesFailure', 'settings', 'refresh', 'signedOut'] as const satisfies ReadonlyArray<keyof CursorPaths>;

export type { Stamp };

export interface Gate {
  v: typeof GATE_VERSION;
  plugin: string;
  /** The AGENTSTACK_* environment the gate was compiled under. */
  env: string;
  /** Until when (epoch ms) it may be used: the token's expiry, at most an hour after it was compiled. */
  until: number;
  /** From when the token falls due for renewal (the hook starts it in the background), or null when it cannot be. */
  renewAt: number | null;
  stamps: Stamp[];
  /** The base URLs that identify AgentStack by url. */
  bases: string[];
  /** A call naming an action the names file does not list is denied for that alone: no per-action rules, no unreadable entry. */
  denies: boolean;
  /** The activity journal is on (the gate's deny records itself). */
  journal: boolean;
  /** The tag of the names file written with this gate (a names file with another tag is not this gate's). */
  names: string;
  /** The actions a step may name with no opinion from the hook, each between newlines. */
  neutral: string;
}

/** The names file: what a call the gate does not answer `{}` may need. */
export interface GateNames {
  /** Every action of the snapshot, each between newlines (a call naming another is denied: here when `denies`, else by the full check). */
  known: string;
  /** The suggestions' index of `known` (suggest.ts `packNameIndex`), base64 of its bytes in this machine's order. */
  index: string;
  /** The actions the person's rules ask about, and nothing else would answer (ask.ts `serializeAsks`; ends with a newline). */
  asks: string;
}

/**
 * `neutral`: answer `{}` (`record`: the hook's run record must be written); `deny`: the call names actions the
 * snapshot lacks (`unknown`, each once, in the call's order) and the gate's deny answers it; `ask`: the person's rules
 * ask about some of its actions and nothing else has an opinion on any (`asks`, each once, in order); `call`: the full check
 * runs, and may use the names file's `known` actions rather than read the whole snapshot; `stale`: the full check
 * runs and compiles a gate.
 */
export type GateCheck =
  | { kind: 'neutral'; record: boolean }
  | { kind: 'deny'; unknown: string[]; known: string; index: string; journal: boolean }
  | { kind: 'ask'; asks: RuleAsk[]; journal: boolean }
  | { kind: 'call'; known?: string }
  | { kind: 'stale'; stamps: Stamp[] | null };

/** The stamps of every source (and of the organization's managed settings file), or null when one cannot be taken. */
export function stampSources(paths: CursorPaths): Stamp[] | null {
  return stampFiles(GATE_SOURCES.map((name) => paths[name]), managedStamps());
}

/** The environment a gate depends on: every AGENTSTACK_* variable. */
export const gateEnv = (env: NodeJS.ProcessEnv): string => envFingerprint(env, 'AGENTSTACK_');

/** The gate file as written, or null when it is missing, not a regular file, too large or not a gate. */
export function readGate(path: string): Gate | null {
  try {
    const text = readStateTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.gate });
    if (text === null) return null;
    const neutralAt = text.indexOf(NEUTRAL_MARK);
    if (neutralAt < 0 || !text.endsWith('\n')) return null;
    const value: unknown = JSON.parse(text.slice(0, neutralAt));
    if (!isObject(value) || value.v !== GATE_VERSION || typeof value.plugin !== 'string' || typeof value.env !== 'string'
      || typeof value.until !== 'number' || !(value.renewAt === null || typeof value.renewAt === 'number') || !Array.isArray(value.stamps) || !Array.isArray(value.bases)
      || typeof value.denies !== 'boolean' || typeof value.journal !== 'boolean' || typeof value.names !== 'string') return null;
    if (!value.bases.every((b) => typeof b === 'string')) return null;
    // Each list keeps the newline before its first name and after its last: `\n<name>\n` finds a whole name.
    return { ...(value as unknown as Omit<Gate, 'neutral'>), neutral: text.slice(neutralAt + NEUTRAL_MARK.length - 1) };
  } catch {
    return null;
  }
}

/** The names file written with the gate tagged `tag`, or null (missing, unreadable, another gate's). */
export function readGateNames(path: string, tag: string): GateNames | null {
  try {
    const text = readStateTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.gateNames });
    if (text === null) return null;
    const knownAt = text.indexOf(KNOWN_MARK);
    const indexAt = text.indexOf(INDEX_MARK, knownAt + 1);
    const asksAt = text.indexOf(ASKS_MARK, indexAt + 1);
    if (knownAt < 0 || indexAt < 0 || asksAt < 0 || text.slice(0, knownAt) !== tag || !text.endsWith('\n')) return null;
    return { known: text.slice(knownAt + KNOWN_MARK.length - 1, indexAt + 1), index: text.slice(indexAt + INDEX_MARK.length, asksAt), asks: text.slice(asksAt + ASKS_MARK.length) };
  } catch {
    return null;
  }
}

const CALL_KEYS = new Set(['steps', 'options']);
const STEP_KEYS = new Set(['id', 'action', 'params']);

/** The actions of an execute call's arguments, when they have exactly the contract's shape; else null. */
export function plainSteps(toolInput: unknown): string[] | null {
  let value = toolInput;
  for (let depth = 0; typeof value === 'string' && depth < 2; depth++) {
    try { value = JSON.parse(value); } catch { return null; }
  }
  if (!isObject(value) || !Array.isArray(value.steps) || value.steps.length === 0) return null;
  for (const key of Object.keys(value)) if (!CALL_KEYS.has(key)) return null;
  const actions: string[] = [];
  for (const step of value.steps as unknown[]) {
    if (!isObject(step) || typeof step.action !== 'string' || step.action === '' || step.action.includes('\n')) return null;
    if (step.id !== undefined && typeof step.id !== 'string' && typeof step.id !== 'number') return null;
    for (const key of Object.keys(step)) if (!STEP_KEYS.has(key)) return null;
    actions.push(step.action);
  }
  return actions;
}

export interface GateCheckOptions {
  paths: CursorPaths;
  env: NodeJS.ProcessEnv;
  now: number;
  plugin: string;
  /** Starts the background renewal (once the gate says the token falls due); never waited for. */
  renew?: () => void;
}

/**
 * Whether the call can be answered `{}` from the gate alone. `stale`: the gate does not hold (the full check runs
 * and compiles a new one from the stamps taken here, before any source is read); `call`: the gate holds but this
 * call needs the full check.
 */
export function checkGate(raw: Record<string, unknown>, o: GateCheckOptions): GateCheck {
  const stamps = stampSources(o.paths);
  const gate = readGate(o.paths.gate);
  if (!gate || gate.plugin !== o.plugin || gate.until <= o.now || gate.env !== gateEnv(o.env) || !sameStamps(stamps, gate.stamps)) {
    return { kind: 'stale', stamps };
  }
  // The token falls due: its renewal starts in the background, and this call is answered as usual.
  if (gate.renewAt !== null && o.now >= gate.renewAt) o.renew?.();
  const identity = callIdentity(raw);
  if (!namesExecuteTool(identity) || !isAgentStackCall(identity, gate.bases)) return { kind: 'call' };
  const actions = plainSteps(raw.tool_input);
  if (actions && actions.every(listLookup(gate.neutral, actions.length))) {
    // The heartbeat diagnose-local reads: written only when this run says something its record does not.
    return { kind: 'neutral', record: !heartbeatCurrent(o.paths.hookRuns, raw, o) };
  }
  const names = readGateNames(o.paths.gateNames, gate.names);
  if (!names) return { kind: 'call' };
  if (!actions || !actions.every(listable)) return { kind: 'call', known: names.known };
  const isKnown = listLookup(names.known, actions.length);
  const unknown = gate.denies ? [...new Set(actions.filter((a) => !isKnown(a)))] : [];
  if (unknown.length) return { kind: 'deny', unknown, known: names.known, index: names.index, journal: gate.journal };
  // The rules' ask, when every other action is one the hook has no opinion on.
  const isNeutral = listLookup(gate.neutral, actions.length);
  const asks = names.asks.length > 3 ? asksOf(names.asks, actions.filter((a) => !isNeutral(a))) : null;
  if (asks?.length) return { kind: 'ask', asks, journal: gate.journal };
  return { kind: 'call', known: names.known };
}

function heartbeatCurrent(path: string, raw: Record<string, unknown>, o: GateCheckOptions): boolean {
  try {
    const text = readStateTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.hookRuns });
    const runs: unknown = text === null ? null : JSON.parse(text);
    const previous = isObject(runs) ? recordOf(runs['pre-mcp']) : null;
    const next = factsOf({ cursor_version: raw.cursor_version, composer_mode: raw.composer_mode, plugin_version: o.plugin, outcome: 'neutral', unknown_form: null });
    return previous !== null && !recordChanged(previous, next, o.now);
  } catch {
    return false;
  }
}
