import { parseBaseUrl, resolveBaseUrl } from '../agentstack/server/baseUrl.js';
import { parseCommandLine, usageError } from '../platform/cli.js';
import { isPluginError } from '../platform/errors.js';
import { cursorPaths } from '../agentstack/server/paths.js';
import { exitCodeFor, fail, renderJson, renderTable, type Check } from '../platform/report.js';
import type { ProbeReport } from '../agentstack/probe/probe.js';
import { bearerFromEnv, bearerFromMcpJson, recordIfRefused } from '../commands/verify/bearerSource.js';
import { runVerify, settledVerify } from '../commands/verify/runVerify.js';
import { applySettings } from '../agentstack/settings/effective.js';
import { setProxyOptions } from '../platform/net/http.js';
import { traceScriptIfAsked } from '../agentstack/debug/trace.js';
import { progressNotes } from '../platform/progress.js';

const { values } = parseCommandLine({
  name: 'verify-mcp-surface-e2e',
  usage: `Usage: node verify-mcp-surface-e2e.mjs [--base-url URL] [--token-env NAME] [--only mcp] [--json]

Verifies the AgentStack server contract: MCP initialize / tools/list / tools/call, REST parity,
/mcp/actions, /mcp/icon, /mcp/health, OAuth discovery and Connect readiness. Exit 1 on any FAIL.

Options:
  --base-url URL     server to check (default AGENTSTACK_BASE_URL or https://agentstack.tech)
  --token-env NAME   read the Bearer from this environment variable (default: ~/.cursor/mcp.json)
  --only mcp         run only the MCP checks
  --json             machine-readable output
  --debug            trace every HTTP exchange on stderr, secrets masked (also AGENTSTACK_DEBUG=api)
  -h, --help         show this help`,
  options: {
    'base-url': { type: 'string' },
    'token-env': { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean' },
    debug: { type: 'boolean' },
  },
});

function usage(message: string): never {
  return usageError('verify-mcp-surface-e2e', message);
}

if (values.only !== undefined && values.only !== 'mcp') usage(`--only accepts only "mcp" (got ${JSON.stringify(String(values.only).slice(0, 40))})`);
// Environment > settings file > default, for the base URL and the proxy.
const settings = applySettings(process.env);
setProxyOptions(settings.proxy);
traceScriptIfAsked(values.debug);
let baseUrl: string;
try {
  baseUrl = typeof values['base-url'] === 'string' ? parseBaseUrl(values['base-url'], '--base-url') : resolveBaseUrl(settings.env);
} catch (error) {
  usage(isPluginError(error) ? error.message : String(error));
}
const tokenEnv = values['token-env'];
const source = typeof tokenEnv === 'string' ? bearerFromEnv(tokenEnv, process.env) : bearerFromMcpJson(cursorPaths().mcpJson, baseUrl);
// Whatever happens, one report (with --json: exactly one JSON document) and an exit code; Ctrl-C included.
function report(all: Check[], probe?: ProbeReport): void {
  const title = `AgentStack MCP surface: ${baseUrl}`;
  process.stdout.write(values.json
    ? renderJson(title, all, { baseUrl, era: probe?.era ?? null, protocolVersion: probe?.protocolVersion ?? null, durationMs: probe?.durationMs ?? null, exchanges: probe?.exchanges ?? [], events: probe?.events ?? [] })
    : renderTable(title, all));
}
process.once('SIGINT', () => {
  report([source.check, fail('verify.run', 'cancelled (Ctrl-C) before the checks finished', 'run it again and let it finish')]);
  process.exit(130);
});
const onProgress = progressNotes({ json: values.json === true });
const result = await settledVerify(() => runVerify({ baseUrl, onProgress, ...(source.bearer ? { bearer: source.bearer } : {}), ...(values.only === 'mcp' ? { only: 'mcp' as const } : {}) }));
recordIfRefused(source, result.probe, { failurePath: cursorPaths().capabilitiesFailure, baseUrl, now: Date.now() });
const all = [source.check, ...result.checks];
report(all, result.probe);
process.exitCode = exitCodeFor(all);
