/** verify-mcp-surface-e2e's checks in order: the MCP probe, then REST and OAuth unless `only` is 'mcp'. */
import { mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { DEFAULT_TIMEOUT_MS, boundedFetch } from '../../platform/net/http.js';
import { watchOrigins } from '../../platform/net/originWatch.js';
import { probeMcpSurface, type ProbeReport } from '../../agentstack/probe/probe.js';
import { isPluginError, quoteShort } from '../../platform/errors.js';
import { fail, type Check } from '../../platform/report.js';
import { oauthChecks } from './oauthChecks.js';
import { actionsCheck, healthCheck, iconCheck, toolsParityCheck } from './restChecks.js';

export interface VerifyOptions {
  baseUrl: string;
  bearer?: string;
  only?: 'mcp';
  timeoutMs?: number;
  /** One-line notes for a person at a terminal: each stage as it starts, and a request that keeps them waiting. */
  onProgress?: (line: string) => void;
}

export interface VerifyResult {
  checks: Check[];
  probe: ProbeReport;
}

/** A check that throws becomes a FAIL row under `id`: a server's odd answer never ends the run without a report. */
export async function settled(id: string, run: () => Promise<Check | Check[]>): Promise<Check[]> {
  try {
    const result = await run();
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    const why = isPluginError(error) ? error.message : quoteShort((error as Error)?.message ?? String(error), 160);
    return [fail(id, `the check stopped on an unexpected answer: ${why}`, 'run again with --json and report the output')];
  }
}

export async function runVerify(options: VerifyOptions): Promise<VerifyResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const progress = options.onProgress ?? (() => {});
  // A server that never answers costs one deadline, not one per check (the later requests to it are not sent).
  const watch = watchOrigins({ onSlow: (origin) => progress(`Still waiting for ${origin} (each request gives up after ${Math.round(timeoutMs / 100) / 10} s)…`) });
  const ctx = { baseUrl: options.baseUrl, mcpUrl: mcpUrlFor(options.baseUrl), timeoutMs, watch, ...(options.bearer ? { bearer: options.bearer } : {}) };
  progress(`Checking the MCP endpoint ${ctx.mcpUrl}…`);
  const probeFetch = watch.fetch(boundedFetch({ timeoutMs, streamEventStreams: true }));
  const probe = await probeMcpSurface({ mcpUrl: ctx.mcpUrl, timeoutMs, fetch: probeFetch, ...(options.bearer ? { bearer: options.bearer } : {}) });
  const checks = [...probe.checks];
  if (options.only !== 'mcp') {
    progress(`Checking the REST endpoints and OAuth discovery of ${options.baseUrl}…`);
    const groups = await Promise.all([
      settled('rest.tools_parity', () => toolsParityCheck(ctx, probe.tools)),
      settled('rest.actions', () => actionsCheck(ctx)),
      settled('rest.icon', () => iconCheck(ctx)),
      settled('rest.health', () => healthCheck(ctx)),
      settled('oauth', () => oauthChecks(ctx)),
    ]);
    checks.push(...groups.flat());
  }
  return { checks, probe };
}

/** runVerify that cannot throw: an unexpected failure is one FAIL row and no probe report. */
export async function settledVerify(run: () => Promise<VerifyResult>): Promise<{ checks: Check[]; probe?: ProbeReport }> {
  let result: VerifyResult | undefined;
  const checks = await settled('verify.run', async () => {
    result = await run();
    return result.checks;
  });
  return result ? result : { checks };
}
