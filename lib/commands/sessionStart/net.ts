/**
 * Everything session start does over the network. The entry reaches it through `await import()`, so esbuild
 * evaluates the HTTP and OAuth clients (~600 KB) only when a network step is needed.
 */
import { httpRequest, parseJson } from '../../platform/http.js';

export { setProxyOptions } from '../../platform/http.js';
import { quoteShort } from '../../platform/errors.js';
import { MeSchema } from '../../schemas/server.js';

export { refreshSingleFlight } from '../../agentstack/auth/tokenRefresh.js';
export { runningFlow, startSignIn } from '../../agentstack/signIn/background.js';
export { refreshSnapshot } from '../../agentstack/snapshot/refresh.js';
export { runDevicePoller } from '../../agentstack/signIn/poller.js';

/** `GET /api/auth/me`, bounded; the display string, or null. */
export async function fetchWho(baseUrl: string, token: string, timeoutMs: number): Promise<string | null> {
  const res = await httpRequest({ url: `${baseUrl}/api/auth/me`, headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, timeoutMs });
  if (res.status !== 200) return null;
  const me = parseJson(res, MeSchema, 'The account').data;
  return quoteShort(me.email || me.display_name || String(me.user_id), 120);
}
