/**
 * The detached device-code poller (`session-start.cjs --device-poller`): reads the issued device code from stdin,
 * completes the flow with the same code as `device-code.mjs` (completeDeviceFlow), caches who signed in, and
 * releases the device lock it was handed. Its stdout and stderr go to `agentstack-device.log`; nothing secret is
 * written there (events carry codes, URLs, counts and times only).
 */
import { unlinkSync } from 'node:fs';
import * as z from 'zod/mini';
import { readLockFile } from '../../platform/fs/fileLock.js';
import type { OAuthEndpoints, DeviceCodeResponse } from '../auth/oauth.js';
import { cursorPaths } from '../server/paths.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { readStdinBounded } from '../../platform/hookIo.js';
import { quoteShort } from '../../platform/errors.js';
import { apiTraceOn } from '../debug/switch.js';
import { traceToDebugLog } from '../debug/trace.js';

export interface DevicePollerHandoff {
  device: DeviceCodeResponse;
  endpoints: OAuthEndpoints;
  clientId: string;
  baseUrl: string;
  projectId: number | null;
  issuedAt: number;
}

function line(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), pid: process.pid, ...event })}\n`);
}

/** What session-start hands the detached poller on stdin; checked like every other input. */
const DevicePollerHandoffSchema = z.looseObject({
  device: z.looseObject({
    device_code: z.string().check(z.minLength(1)),
    user_code: z.string().check(z.minLength(1)),
    verification_uri: z.string(),
    expires_in: z.number(),
  }),
  endpoints: z.looseObject({ tokenEndpoint: z.string(), deviceAuthorizationEndpoint: z.string(), resource: z.string(), issuer: z.string(), source: z.enum(['discovery', 'builtin']) }),
  clientId: z.string(),
  baseUrl: z.string(),
  projectId: z.nullable(z.number()),
  issuedAt: z.number(),
});

function releaseLock(path: string, userCode: string): void {
  const holder = readLockFile(path);
  if (holder && holder.pid === process.pid && holder.user_code === userCode) {
    try { unlinkSync(path); } catch { /* already gone */ }
  }
}

export async function runDevicePoller(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const input = await readStdinBounded({ timeoutMs: 5_000, maxBytes: 64 * 1024 });
  let handoff: DevicePollerHandoff;
  try {
    const parsed = DevicePollerHandoffSchema.safeParse(JSON.parse(input.text));
    if (!parsed.success) throw new Error('incomplete');
    handoff = parsed.data as unknown as DevicePollerHandoff;
  } catch {
    line({ event: 'error', error: 'invalid_config', message: 'The poller got no usable device code on stdin' });
    return 1;
  }
  const paths = cursorPaths(env);
  if (apiTraceOn(env)) traceToDebugLog(env, 'sign-in poller', (message) => line({ event: 'warning', message }), paths.debugLog);
  const controller = new AbortController();
  process.once('SIGTERM', () => controller.abort());
  process.once('SIGINT', () => controller.abort());
  line({ event: 'poller_started', user_code: handoff.device.user_code, server_url: mcpUrlFor(handoff.baseUrl) });
  try {
    const { completeDeviceFlow } = await import('./flow.js');
    const { applySettings } = await import('../settings/effective.js');
    // Read once here and handed down: the save does not read them again.
    const settings = applySettings(env);
    const { clientFromEnv } = await import('../auth/oauth.js');
    const fromEnv = clientFromEnv(env);
    const client = fromEnv.clientId === handoff.clientId ? fromEnv : { clientId: handoff.clientId };
    const result = await completeDeviceFlow({
      device: handoff.device,
      endpoints: handoff.endpoints,
      client,
      baseUrl: handoff.baseUrl,
      paths,
      projectId: handoff.projectId,
      issuedAt: handoff.issuedAt,
      env: settings.env,
      settings,
      signal: controller.signal,
      onEvent: (event) => { if (event.event !== 'authorized') line(event as unknown as Record<string, unknown>); },
    });
    line({ event: 'authorized', server_url: result.server_url, project_id: result.project_id, expires_at: result.expires_at, capabilities: result.capabilities, ...(result.skipped ? { skipped: result.skipped.count } : {}), warnings: result.warnings });
    return 0;
  } catch (error) {
    const code = (error as { code?: string })?.code ?? 'server';
    line({ event: 'error', error: code, message: quoteShort((error as Error)?.message ?? 'unexpected failure', 300) });
    return 1;
  } finally {
    releaseLock(paths.deviceLock, handoff.device.user_code);
  }
}
