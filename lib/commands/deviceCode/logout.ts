/**
 * `device-code --logout`: signs out (lib/agentstack/signIn/signOut.ts) and says what happened, gh-style; with
 * `--json`, stdout carries one `signed_out` event (or one `error` event) and the human text goes to stderr.
 * Exit 0 when signed out locally (even if the server could not revoke), 1 on a local failure.
 */
import { existsSync } from 'node:fs';
import { signOut, type SignOutResult } from '../../agentstack/signIn/signOut.js';
import { jsonErrorCode, type OutputStreams } from '../../agentstack/signIn/output.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { setProxyOptions } from '../../platform/net/http.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import { journalFiles, removeJournal } from '../../agentstack/journal/file.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { stepFor } from '../../agentstack/state/story.js';
import { readStatus } from './status.js';

export interface LogoutOptions {
  json: boolean;
  env: NodeJS.ProcessEnv;
  streams: OutputStreams;
  signal?: AbortSignal;
  /** `--purge-journal`: also remove the activity journal (it holds no secret, so a sign-out keeps it otherwise). */
  purgeJournal?: boolean;
}

/** The activity journal after a sign-out: removed when asked, else kept (named only when there is one). */
function settleJournal(env: NodeJS.ProcessEnv, purge: boolean): { state: 'removed' | 'kept' | 'none'; line: string | null } {
  const path = cursorPaths(env).journal;
  if (purge) {
    try {
      const removed = removeJournal(path);
      return { state: removed ? 'removed' : 'none', line: removed ? '  The activity journal was removed (--purge-journal).' : null };
    } catch (error) {
      return { state: 'kept', line: `  warning: the activity journal ${path} could not be removed (${(error as NodeJS.ErrnoException).code ?? 'error'}); remove it by hand.` };
    }
  }
  if (!journalFiles(path).some((file) => existsSync(file))) return { state: 'none', line: null };
  return { state: 'kept', line: '  The activity journal stays (it holds no secret); --logout --purge-journal removes it.' };
}

function whenText(iso: string | null): string {
  return iso ? iso.replace(/\.\d{3}Z$/, 'Z') : 'it expires';
}

/** The last access token's expiry still ahead, or null (unknown, or already past: nothing stays valid). */
function aheadOf(iso: string | null, now: number): string | null {
  return iso !== null && Date.parse(iso) > now ? iso : null;
}

/** The human lines for a sign-out that happened locally. `pinned`: a project pin stays for the next sign-in. */
export function signedOutLines(result: SignOutResult, context: { pinned?: boolean; now?: number } = {}): string[] {
  const now = context.now ?? Date.now();
  const expiresAt = aheadOf(result.access_token_expires_at, now);
  const server = `server ${result.server_url}`;
  if (!result.was_signed_in) {
    return [`You were not signed in to AgentStack (${server}); nothing to sign out.`, ...result.warnings.map((w) => `  warning: ${w}`)];
  }
  const lines: string[] = [];
  if (result.revoked) {
    const what = result.access_token_revoked ? 'the refresh and access tokens were revoked.' : 'the refresh token was revoked.';
    const rest = result.access_token_revoked || !expiresAt
      ? ''
      : ` The last access token stays valid until ${whenText(expiresAt)} unless the server checks revocation.`;
    const kept = result.refresh_kept_in ? ` Its copy in the ${result.refresh_kept_in} could not be removed (below).` : '';
    lines.push(`✓ Signed out of AgentStack (${server}); ${what}${rest}${kept}`);
    if (result.revocation_endpoint) lines.push(`  Revoked at ${result.revocation_endpoint} (RFC 7009).`);
  } else {
    lines.push(result.refresh_kept_in
      ? `✓ Signed out of AgentStack on this machine (${server}), except for the refresh token in the ${result.refresh_kept_in}: its entry could not be removed (below).`
      : `✓ Signed out of AgentStack on this machine (${server}); no copy of the tokens is left here.`);
    const revokeThere = `Revoke the "${quoteShort(result.client_id, 60)}" sign-in in your account at ${result.revoke_at}`;
    if (result.reason === 'unsupported_token_type') {
      // RFC 7009 §2.2.1: the server's answer that it does not revoke this type of token, not a failure of ours.
      lines.push(`  The server does not revoke access tokens (it answered unsupported_token_type, RFC 7009 §2.2.1)${expiresAt ? `: the last access token stays valid there until ${whenText(expiresAt)}` : ''}. ${revokeThere} to end it sooner.`);
    } else {
      const why = result.reason === 'needs_client_auth' ? 'The sign-in cannot be revoked at the server from here' : 'The sign-in could not be revoked at the server';
      lines.push(`! ${why} (${result.message ?? result.reason}). ${revokeThere}; until then it stays valid there${expiresAt ? ` (the last access token until ${whenText(expiresAt)})` : ''}.`);
    }
  }
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  lines.push(`  The agentstack entry in mcp.json keeps its URL${context.pinned ? ' and the project pin stays' : ''}. ${stepFor('signed_out')}`);
  return lines;
}

export async function runLogout(options: LogoutOptions): Promise<number> {
  const { streams, json } = options;
  const human = json ? streams.stderr : streams.stdout;
  // Ctrl-C while the server is asked only stops the revocation: the local sign-out is done by then.
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  options.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    // Environment > settings file > default, as for signing in: the same server, the same proxy.
    const settings = applySettings(options.env);
    setProxyOptions(settings.proxy);
    const result = await signOut({ env: settings.env, settings, signal: controller.signal });
    const journal = settleJournal(settings.env, options.purgeJournal === true);
    if (json) {
      streams.stdout.write(`${JSON.stringify({
        event: 'signed_out',
        server_url: result.server_url,
        was_signed_in: result.was_signed_in,
        revoked: result.revoked,
        access_token_revoked: result.access_token_revoked,
        reason: result.reason,
        message: result.message,
        access_token_expires_at: result.access_token_expires_at,
        revoke_at: result.revoke_at,
        client_id: result.client_id,
        revocation_endpoint: result.revocation_endpoint,
        warnings: result.warnings,
        refresh_kept_in: result.refresh_kept_in,
        journal: journal.state,
      })}\n`);
    }
    // A pin stays only when there is one: the one model's project (the pin the next sign-in writes).
    let pinned = false;
    try { pinned = readStatus(settings.env, undefined, settings).facts.project.nextSignIn !== null; } catch { /* none to name */ }
    for (const line of [...signedOutLines(result, { pinned }), ...(journal.line ? [journal.line] : [])]) human.write(`${line}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof PluginError
      ? `${error.message} Nothing was signed out; run --logout again once this is fixed.`
      : `Unexpected failure: ${quoteShort((error as Error)?.message ?? error, 160)}`;
    if (json) streams.stdout.write(`${JSON.stringify({ event: 'error', error: jsonErrorCode(error), message })}\n`);
    streams.stderr.write(`X ${message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
