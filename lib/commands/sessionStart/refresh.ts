/**
 * Session start's renewal step: a token near its end, or one the server refuses, is refreshed (single-flight, in
 * net.ts); a renewable token that says nothing of its end is first checked with one MCP request.
 */
import { mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { classifyCredential, needsRefresh, refusedView, type CredentialView, type McpConfig } from '../../agentstack/mcpJson/credential.js';
import { refreshBelongsTo } from '../../agentstack/auth/refreshStore.js';
import { left, type Run } from './context.js';
import { DEVICE_CODE } from '../../agentstack/state/story.js';
import { tilde } from '../../platform/text/tilde.js';

/** A token that says nothing of its end (no expiry in it or on record) but can be renewed. */
function unknownEnd(run: Run, gate: CredentialView): boolean {
  return !run.offline && gate.state === 'ok' && gate.expiresAtMs === null && gate.token !== null && !gate.apiKey
    && run.stored !== null && refreshBelongsTo(run.stored, run.baseUrl) && left(run.ctx) > 2_500;
}

/**
 * Step 3: refresh a token near expiry, or one the server refuses as invalid, or (`restore`) put back the agentstack
 * entry someone took out of mcp.json while its refresh token is kept; the credential view after it.
 */
export async function refreshStep(run: Run, gate: CredentialView, restore = false): Promise<{ gate: CredentialView; config: McpConfig | null; refusedGrant?: true }> {
  const { ctx } = run;
  let net = !run.offline && (needsRefresh(gate, ctx.now()) || restore) && run.stored ? await run.net() : null;
  let pinged = false;
  if (!net && unknownEnd(run, gate)) {
    // A renewable token with no known end: the server's first 401 invalid_token (RFC 6750 §3.1) is its expiry.
    const checker = await run.net();
    if (checker && await checker.mcpRefusesToken({ baseUrl: run.baseUrl, token: gate.token!, timeoutMs: Math.min(2_000, left(ctx) - 500) })) {
      gate = refusedView(gate, true, ctx.now());
      net = checker;
      pinged = true;
    }
  }
  if (!net) return { gate, config: null };
  const outcome = await net.refreshSingleFlight({ paths: run.paths, env: run.env, settings: run.settings, baseUrl: run.baseUrl, deadline: ctx.deadline, seenToken: gate.token, refused: gate.state === 'expired', now: ctx.now });
  if (pinged && outcome.kind !== 'refreshed' && outcome.kind !== 'superseded') {
    // The refused token stays in mcp.json: recorded as the catalog fetch records it, so no later view calls it signed in.
    try {
      net.recordRefusal({ failurePath: run.paths.capabilitiesFailure, serverUrl: mcpUrlFor(run.baseUrl), token: gate.token!, message: `${mcpUrlFor(run.baseUrl)} refused the token (HTTP 401 invalid_token)`, now: ctx.now() });
    } catch { /* the next session start asks again */ }
  }
  if (outcome.kind === 'refreshed' || outcome.kind === 'superseded') {
    const config = run.readConfig();
    ctx.notes.push(outcome.kind === 'superseded' ? 'A new sign-in replaced the credential while it was being refreshed; the new one is kept.'
      : restore && outcome.byThisProcess ? `Restored the agentstack entry in ${tilde(run.paths.mcpJson)} from the stored refresh token (no new sign-in); to disconnect, run ${DEVICE_CODE} --logout.`
      : outcome.byThisProcess ? 'Refreshed the access token.' : 'The access token was refreshed by another session.');
    return { gate: classifyCredential({ config, now: ctx.now() }), config };
  }
  if (outcome.kind === 'invalid_grant') {
    ctx.notes.push('The stored refresh token was refused (invalid_grant) and removed; a new sign-in is needed.');
    return { gate: { ...gate, state: 'expired' }, config: null, refusedGrant: true };
  }
  if (outcome.kind === 'failed') ctx.notes.push(`Could not refresh the token: ${outcome.message}.`);
  return { gate, config: null };
}
