/**
 * Session start's capability snapshot step: the decision (fetch or not) is pure; the step reads the file's top
 * level, fetches through the network module only when the decision says so, and returns what the card shows.
 * A failed fetch is recorded beside the snapshot and not retried for 15 minutes. A folder (or another thing that is
 * not a file) in the snapshot's place is moved aside, nothing in it lost, so a fresh snapshot can be written: until
 * then no call could be checked, and the organization's capability rules deny.
 */
import { stepBecause, stepFor } from '../../agentstack/state/story.js';
import { refusedState } from '../../agentstack/state/account.js';
import { tilde } from '../../platform/text/tilde.js';
import { renameSync } from 'node:fs';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import { readSnapshotMeta, snapshotIsStale, type SnapshotMetaRead } from '../../agentstack/snapshot/meta.js';
import { SNAPSHOT_MAX_AGE_MS, SNAPSHOT_RETRY_MS, notAgentStackText } from '../../agentstack/snapshot/layout.js';
import { readSnapshotFailure } from '../../agentstack/snapshot/store.js';
import { tokenFingerprint } from '../../agentstack/mcpJson/credential.js';
import type { SnapshotFailure } from '../../schemas/state.js';
import type { CardCapabilities } from './card.js';
import { pluginCommand } from '../../agentstack/plugin/root.js';
type NetModule = typeof import('./net.js');

export type SnapshotPlan =
  | { fetch: true }
  | { fetch: false; why: 'fresh' | 'signed_out' | 'folder' | 'backoff' | 'no_time'; retryAt?: number };

/** Pure: whether this session start fetches the catalog. A failure recorded for this server less than 15 min ago waits. */
export function planSnapshot(args: {
  read: SnapshotMetaRead;
  failure: SnapshotFailure | null;
  serverUrl: string;
  signedIn: boolean;
  now: number;
  timeLeftMs: number;
}): SnapshotPlan {
  if (!args.signedIn) return { fetch: false, why: 'signed_out' };
  if (args.read.kind === 'unreadable' && args.read.folder) return { fetch: false, why: 'folder' };
  if (args.read.kind === 'ok' && !snapshotIsStale(args.read.meta, args.serverUrl, args.now)) return { fetch: false, why: 'fresh' };
  const failedAt = args.failure && args.failure.server_url === args.serverUrl ? Date.parse(args.failure.at) : NaN;
  // A record dated in the future (a clock change) does not hold off the fetch.
  if (Number.isFinite(failedAt) && failedAt <= args.now && args.now - failedAt < SNAPSHOT_RETRY_MS) {
    return { fetch: false, why: 'backoff', retryAt: failedAt + SNAPSHOT_RETRY_MS };
  }
  if (args.timeLeftMs <= 1_000) return { fetch: false, why: 'no_time' };
  return { fetch: true };
}

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16) + 'Z';

export interface SnapshotStepArgs {
  paths: CursorPaths;
  baseUrl: string;
  serverUrl: string;
  /** The usable Bearer, or null when not signed in (nothing is fetched). */
  token: string | null;
  now: () => number;
  timeLeftMs: () => number;
  net: () => Promise<NetModule | null>;
  pluginRoot: string;
  notes: string[];
  todo: string[];
  /** A refresh token for this server is stored: a refused token is renewed, not signed in again. */
  refreshable?: boolean;
}

/** Renames what is at `path` to a name beside it; the new name, or null when it could not be moved. */
function moveAside(path: string, now: number): string | null {
  const aside = `${path}.moved-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(path, aside);
    return aside;
  } catch {
    return null;
  }
}

/** `staleAt`: when a fresh snapshot falls due for a refetch (only when it was fresh and nothing was fetched). */
export async function snapshotStep(args: SnapshotStepArgs): Promise<{ capabilities: CardCapabilities; refreshed: boolean; staleAt?: number }> {
  const { paths, serverUrl } = args;
  let read = readSnapshotMeta(paths.capabilities);
  if (read.kind === 'unreadable' && (read.folder || read.reason === 'is not a regular file')) {
    const aside = moveAside(paths.capabilities, args.now());
    if (aside) {
      args.notes.push(`The capability snapshot's place ${paths.capabilities} ${read.reason}; it was moved to ${aside} and a new snapshot takes its place.`);
      read = readSnapshotMeta(paths.capabilities);
    }
  }
  const stale = read.kind !== 'ok' || snapshotIsStale(read.meta, serverUrl, args.now());
  // The failure record is read only when the snapshot is not fresh: the fast path stays one file.
  let failure = stale && args.token ? readSnapshotFailure(paths.capabilitiesFailure) : null;
  // A refusal of another token (the one renewed since, or refused by a probe) holds off nothing for this one.
  if (failure?.unauthorized && failure.token_sha256 && failure.token_sha256 !== tokenFingerprint(args.token!)) failure = null;
  const plan = planSnapshot({ read, failure, serverUrl, signedIn: args.token !== null, now: args.now(), timeLeftMs: args.timeLeftMs() });
  let refreshed = false;
  const module = plan.fetch ? await args.net() : null;
  if (module) {
    const result = await module.refreshSnapshot({
      path: paths.capabilities, failurePath: paths.capabilitiesFailure, baseUrl: args.baseUrl, token: args.token!,
      timeoutMs: Math.min(4_000, args.timeLeftMs() - 500), revalidate: true, now: args.now,
    });
    if (result.kind === 'failed') {
      if (!result.notServed) args.notes.push(`Could not refresh the capability snapshot: ${result.message}.`);
      if (result.unauthorized) args.todo.push(stepBecause(stepFor(refusedState({ refreshable: args.refreshable === true }))!, 'the server refused the token'));
      failure = { at: new Date(args.now()).toISOString(), server_url: serverUrl, message: result.message, ...(result.notServed ? { not_served: true } : {}) };
    } else {
      refreshed = true;
      failure = null;
      if (result.kind === 'updated' && (result.diff.added.length || result.diff.removed.length)) {
        const parts = [];
        if (result.diff.added.length) parts.push(`added ${result.diff.added.join(', ')}`);
        if (result.diff.removed.length) parts.push(`removed ${result.diff.removed.join(', ')}`);
        args.notes.push(`The server's action list changed since the last snapshot: ${parts.join('; ')}.`);
      }
    }
    read = readSnapshotMeta(paths.capabilities);
  }

  const meta = read.kind === 'ok' ? read.meta : null;
  const capabilities: CardCapabilities = { count: meta ? meta.count : null, skipped: meta?.skipped_entries ?? 0, skippedReason: meta?.skipped_reason ?? null };
  const diagnose = pluginCommand('scripts/diagnose-local.mjs', args.pluginRoot);
  const snapshotPath = tilde(paths.capabilities);
  if (read.kind === 'unreadable') {
    capabilities.problem = `${snapshotPath} ${read.reason}`;
    args.todo.push(read.folder
      ? `Remove the folder ${snapshotPath}; the next session start writes the capability snapshot there. Until then AgentStack calls are not checked.`
      : `The capability snapshot ${snapshotPath} ${read.reason}; delete it and start a new session, or run ${diagnose}.`);
  } else if (failure?.not_served && !refreshed && !meta && (plan.fetch || plan.why === 'backoff')) {
    // Not a failure to fix: the server has no capability list, so there is nothing to check calls against.
    capabilities.problem = notAgentStackText(args.baseUrl);
  } else if (failure && !refreshed && (plan.fetch || plan.why === 'backoff')) {
    const retry = plan.fetch ? args.now() + SNAPSHOT_RETRY_MS : plan.retryAt!;
    capabilities.problem = `the last catalog fetch failed at ${hhmm(Date.parse(failure.at))} (${failure.message}); tried again after ${hhmm(retry)}`;
    args.todo.push(`${meta ? 'The capability snapshot is out of date' : 'There is no capability snapshot, so AgentStack calls are not checked'}: GET /mcp/actions failed. Check the server and your sign-in with ${diagnose} --online; session start tries again after ${hhmm(retry)}.`);
  }
  if (meta?.unapproved?.length) {
    args.todo.push(`Review the actions not yet approved (${meta.unapproved.slice(0, 10).join(', ')}${meta.unapproved.length > 10 ? ', …' : ''}); calls using them ask first. Approve them with: ${diagnose} --approve-actions`);
  }
  const staleAt = plan.fetch === false && plan.why === 'fresh' && meta ? Date.parse(meta.fetched_at) + SNAPSHOT_MAX_AGE_MS : undefined;
  return { capabilities, refreshed, ...(staleAt !== undefined && Number.isFinite(staleAt) ? { staleAt } : {}) };
}
