/**
 * Session start's fast path. Most session starts have nothing to do (a fresh token, a fresh snapshot, nothing to
 * clean): the card such a run gives is compiled into `agentstack-session-gate.json` (0600, no secret) with what it
 * was made from, and the next start with the same sources answers that card without loading the session logic. The
 * gate holds only while every source file is as it was (size, times, inode), the AGENTSTACK_* environment, the
 * plugin version and its folder are the same, and no step falls due (the token's renewal, the snapshot's refetch).
 * The card's token line is said again at the time of the run. Anything else goes the full way, which compiles a new
 * gate when its run was quiet again.
 */
import { envFingerprint, sameStamps, stampFiles, type Stamp } from '../../platform/fs/fileStamps.js';
import { readStateTextIfExists } from '../../platform/fs/stateFile.js';
import { writeFileAtomic } from '../../platform/fs/secureFile.js';
import { isObject } from '../../platform/text/isObject.js';
import { STATE_FILE_MAX_BYTES } from '../../agentstack/server/fileLimits.js';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import { managedStamps } from '../../agentstack/settings/managedPath.js';
import { expiryText } from '../../agentstack/state/account.js';

export const SESSION_GATE_VERSION = 1;

/** What a quiet session start reads: the gate holds while none of these changes. */
export const SESSION_SOURCES = ['mcpJson', 'refresh', 'capabilities', 'capabilitiesFailure', 'settings', 'signedOut', 'identity', 'project'] as const satisfies ReadonlyArray<keyof CursorPaths>;

export interface SessionGate {
  v: typeof SESSION_GATE_VERSION;
  plugin: string;
  root: string;
  env: string;
  /** Until when (epoch ms) nothing falls due. */
  until: number;
  stamps: Stamp[];
  /** The card as the quiet run gave it. */
  card: string;
  /** The token's expiry its card line says, or null when the card has no token line. */
  expiresAt: string | null;
}

export interface SessionGateOptions {
  paths: CursorPaths;
  env: NodeJS.ProcessEnv;
  now: number;
  plugin: string;
  pluginRoot: string;
}

export const stampSessionSources = (paths: CursorPaths): Stamp[] | null => stampFiles(SESSION_SOURCES.map((name) => paths[name]), managedStamps());

function readSessionGate(path: string): SessionGate | null {
  try {
    const text = readStateTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.sessionGate });
    if (text === null) return null;
    const v: unknown = JSON.parse(text);
    if (!isObject(v) || v.v !== SESSION_GATE_VERSION || typeof v.plugin !== 'string' || typeof v.root !== 'string' || typeof v.env !== 'string'
      || typeof v.until !== 'number' || typeof v.card !== 'string' || (v.expiresAt !== null && typeof v.expiresAt !== 'string')) return null;
    return v as unknown as SessionGate;
  } catch {
    return null;
  }
}

const TOKEN_LINE = '- Token: ';

/**
 * The card of a quiet run, with its token line (the first line that starts `- Token: `; the card's lines end with
 * `\n`) said as of `now`. Pure; string searches, not a pattern, whose compiling would cost a quiet start ~0.1 ms.
 */
export function cardAt(gate: Pick<SessionGate, 'card' | 'expiresAt'>, now: number): string {
  const { card } = gate;
  if (gate.expiresAt === null) return card;
  const start = card.startsWith(TOKEN_LINE) ? 0 : card.indexOf(`\n${TOKEN_LINE}`) + 1;
  if (start === 0 && !card.startsWith(TOKEN_LINE)) return card;
  const end = card.indexOf('\n', start);
  return `${card.slice(0, start)}${TOKEN_LINE}${expiryText(gate.expiresAt, now)}${end < 0 ? '' : card.slice(end)}`;
}

/** The card when the gate holds; else the stamps taken now (before anything is read), to compile a new gate from. */
export function checkSessionGate(o: SessionGateOptions): { kind: 'hit'; card: string } | { kind: 'stale'; stamps: Stamp[] | null } {
  const stamps = stampSessionSources(o.paths);
  const gate = readSessionGate(o.paths.sessionGate);
  if (!gate || gate.plugin !== o.plugin || gate.root !== o.pluginRoot || gate.until <= o.now || gate.env !== envFingerprint(o.env, 'AGENTSTACK_') || !sameStamps(stamps, gate.stamps)) {
    return { kind: 'stale', stamps };
  }
  return { kind: 'hit', card: cardAt(gate, o.now) };
}

/** What a quiet run hands over to be compiled. */
export interface QuietRun {
  card: string;
  expiresAt: string | null;
  until: number;
}

/** The gate for a quiet run, when no source changed while it ran; null otherwise. Pure but for the stamps. */
export function compileSessionGate(o: SessionGateOptions, stamps: Stamp[] | null, run: QuietRun): SessionGate | null {
  if (stamps === null || run.until <= o.now || !sameStamps(stampSessionSources(o.paths), stamps)) return null;
  return { v: SESSION_GATE_VERSION, plugin: o.plugin, root: o.pluginRoot, env: envFingerprint(o.env, 'AGENTSTACK_'), until: run.until, stamps, card: run.card, expiresAt: run.expiresAt };
}

/** Compiles the card of a quiet run for the next start and writes it (0600, atomic); never a failure of the hook. */
export function saveSessionGate(o: SessionGateOptions, stamps: Stamp[] | null, run: QuietRun): boolean {
  try {
    const gate = compileSessionGate({ ...o, now: Date.now() }, stamps, run);
    if (!gate) return false;
    writeFileAtomic(o.paths.sessionGate, `${JSON.stringify(gate)}\n`, { durable: false });
    return true;
  } catch {
    return false;
  }
}
