/**
 * Everything session start does over the network, bundled separately as `hooks/scripts/session-start-net.mjs` and
 * loaded only when a network step is needed: the HTTP and OAuth clients weigh ~600 KB, and merely compiling them
 * would cost the no-network path more than its whole start-up budget (measured: ~15 ms of module compile).
 */
import { httpRequest, parseJson } from '../http.js';
import { quoteShort } from '../errors.js';
import { MeSchema } from '../schemas/server.js';

export { refreshSingleFlight } from './refresh.js';
export { runningFlow, startSignIn } from './signIn.js';
export { refreshSnapshot } from './snapshotRefresh.js';
export { runDevicePoller } from './poller.js';

/** `GET /api/auth/me`, bounded; the display string, or null. */
export async function fetchWho(baseUrl: string, token: string, timeoutMs: number): Promise<string | null> {
  const res = await httpRequest({ url: `${baseUrl}/api/auth/me`, headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, timeoutMs });
  if (res.status !== 200) return null;
  const me = parseJson(res, MeSchema, 'The account').data;
  return quoteShort(me.email || me.display_name || String(me.user_id), 120);
}
