/**
 * The detached renewal itself (start.ts starts it): the settings applied, the single-flight refresh of the token
 * in ~/.cursor/mcp.json, then exit. It writes nothing but the credential files, and nothing to a terminal.
 */
import { baseUrlIn } from '../settings/keys.js';
import { applySettings } from '../settings/effective.js';
import { setProxyOptions } from '../../platform/net/http.js';
import { chooseBaseUrl } from '../mcpJson/entry.js';
import { agentstackEntry, bearerOf } from '../mcpJson/credential.js';
import { readMcpConfigFile } from '../mcpJson/file.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { decodeJwtClaims } from '../auth/jwt.js';
import { readSnapshotFailure } from '../snapshot/store.js';
import { refusedSince } from '../state/derive.js';
import { cursorPaths } from '../server/paths.js';
import { refreshSingleFlight } from '../auth/tokenRefresh.js';

/** How long the renewal may take in all. */
export const RENEWAL_BUDGET_MS = 20_000;

/** 0 when the token was renewed (here or by another process) or needed nothing; 1 otherwise. */
export async function runRenewal(processEnv: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const settings = applySettings(processEnv);
    setProxyOptions(settings.proxy);
    const env = settings.env;
    const paths = cursorPaths(env);
    const config = readMcpConfigFile(paths.mcpJson).config;
    const baseUrl = chooseBaseUrl(agentstackEntry(config), baseUrlIn(env));
    const seenToken = bearerOf(config);
    // A Bearer the server refused (401 to the last catalog fetch) is renewed whatever its own expiry says.
    const refused = seenToken !== null && refusedSince(readSnapshotFailure(paths.capabilitiesFailure), mcpUrlFor(baseUrl), decodeJwtClaims(seenToken), seenToken);
    const outcome = await refreshSingleFlight({ paths, env, settings, baseUrl, deadline: Date.now() + RENEWAL_BUDGET_MS, seenToken, refused });
    return outcome.kind === 'refreshed' || outcome.kind === 'not_needed' || outcome.kind === 'superseded' ? 0 : 1;
  } catch {
    return 1;
  }
}
