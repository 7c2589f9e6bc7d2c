/** verify-mcp-surface-e2e's checks in order: the MCP probe, then REST and OAuth unless `only` is 'mcp'. */
import { mcpUrlFor } from '../../agentstack/server/baseUrl.js';
import { DEFAULT_TIMEOUT_MS } from '../../platform/http.js';
import { probeMcpSurface, type ProbeReport } from '../../agentstack/probe/probe.js';
import type { Check } from '../../platform/report.js';
import { oauthChecks } from './oauthChecks.js';
import { actionsCheck, healthCheck, iconCheck, toolsParityCheck } from './restChecks.js';

export interface VerifyOptions {
  baseUrl: string;
  bearer?: string;
  only?: 'mcp';
  timeoutMs?: number;
}

export interface VerifyResult {
  checks: Check[];
  probe: ProbeReport;
}

export async function runVerify(options: VerifyOptions): Promise<VerifyResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ctx = { baseUrl: options.baseUrl, mcpUrl: mcpUrlFor(options.baseUrl), timeoutMs, ...(options.bearer ? { bearer: options.bearer } : {}) };
  const probe = await probeMcpSurface({ mcpUrl: ctx.mcpUrl, timeoutMs, ...(options.bearer ? { bearer: options.bearer } : {}) });
  const checks = [...probe.checks];
  if (options.only !== 'mcp') {
    const [parity, actions, icon, health, oauth] = await Promise.all([
      toolsParityCheck(ctx, probe.tools),
      actionsCheck(ctx),
      iconCheck(ctx),
      healthCheck(ctx),
      oauthChecks(ctx),
    ]);
    checks.push(parity, ...actions, icon, health, ...oauth);
  }
  return { checks, probe };
}
