/**
 * RFC 8628 behaviours oidc-provider lacks, applied to token-endpoint requests before the provider sees them:
 * `slow_down` (fault and real enforcement of `interval`) and the `alwaysPending` fault. Also counts token requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson } from './http.js';
import { DEVICE_GRANT } from './oauth.js';
import type { CoreState } from './state.js';

const TOKEN_BODY_LIMIT = 56 * 1024;
/** Polls this much earlier than `interval` are still tolerated (network jitter). */
const JITTER_MS = 150;

function oauthError(res: ServerResponse, error: string, description: string): void {
  sendJson(res, 400, { error, error_description: description }, { pragma: 'no-cache' });
}

/** Returns true when it answered the request itself; otherwise the body is left on `req.body` for the provider. */
export async function tokenGate(state: CoreState, req: IncomingMessage & { body?: string }, res: ServerResponse, internal: boolean): Promise<boolean> {
  const raw = await readBody(req, TOKEN_BODY_LIMIT);
  req.body = raw;
  if (internal) return false;
  const params = new URLSearchParams(raw);
  const grantType = params.get('grant_type');
  state.counters.tokenRequests += 1;
  if (grantType === 'refresh_token') state.counters.refreshGrants += 1;
  if (grantType !== DEVICE_GRANT) return false;

  const deviceCode = params.get('device_code') ?? '';
  const { faults } = state;
  const poll = state.polls.get(deviceCode);
  const now = Date.now();
  if (faults.alwaysPending) {
    oauthError(res, 'authorization_pending', 'authorization request is still pending (fault: alwaysPending)');
    return true;
  }
  if (faults.slowDown > 0) {
    faults.slowDown -= 1;
    if (poll) {
      poll.interval += 5;
      poll.last = now;
    }
    oauthError(res, 'slow_down', 'polling too fast; add 5 seconds to the interval (fault: slowDown)');
    return true;
  }
  if (poll && faults.enforceInterval) {
    const early = poll.last > 0 && now - poll.last < poll.interval * 1000 - JITTER_MS;
    poll.last = now;
    if (early) {
      poll.interval += 5;
      oauthError(res, 'slow_down', `polled faster than the interval; now ${poll.interval} s`);
      return true;
    }
  }
  return false;
}
