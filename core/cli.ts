/** `npm run dev-core`: runs the reference core on 127.0.0.1 until Ctrl-C. Flags override AGENTSTACK_CORE_* env. */
import { parseArgs } from 'node:util';
import { ROUTE_NAMES, type CoreFaults, type EndpointFaultKind, type RouteName } from './faults.js';
import { startCore } from './index.js';
import { VARIANT_HELP, VARIANT_NAMES, isVariantName, type VariantName } from './variants.js';

const HELP = `Usage: npm run dev-core -- [options]
  --port N                 port on 127.0.0.1 (default: a free port; env AGENTSTACK_CORE_PORT)
  --interval N             device-flow polling interval, seconds (default 5)
  --access-token-ttl N     access token lifetime, seconds (default 3600)
  --device-code-ttl N      device code lifetime, seconds (default 600)
  --slow-down N            answer slow_down to the next N device-code polls
  --always-pending         device-code polls never complete
  --no-enforce-interval    do not answer slow_down to clients polling too fast
  --fault ROUTE=KIND[:N]   endpoint fault (repeatable); KIND: 5xx|hang|reset|malformed|oversized|slow (3 s late)
  --second-tool MODE       same-page | page2
  --expire-sessions        the first MCP session answers 404 once right after its handshake
  --session-not-found-code N   e.g. -32016
  --session-not-found-status N HTTP status of that answer, e.g. 400 or 500
  --hostile-verification-uri URI
  --no-discovery  --no-refresh-tokens  --no-icons  --bad-icon  --actions-count-mismatch
  --connect-stub           serve a home-made Connect page at /mcp/.well-known/oauth-authorize
  --rest-tools-drift       GET /mcp/tools and /mcp/tools/list differ from JSON-RPC tools/list
  --close-call-stream      tools/call closes its SSE stream before the result (clients resume with Last-Event-ID)
  --sse-retry-ms N         the retry (ms) sent in the priming event of each MCP response stream
  --variant NAME           serve the contract differently, as another compatible server might (repeatable)
  --auto-approve           approve each device code as it is issued, as the first test account (for scripts)
  --verbose                log core errors
Routes: ${ROUTE_NAMES.join(', ')}
Variants:
${VARIANT_NAMES.map((name) => `  ${name.padEnd(17)} ${VARIANT_HELP[name]}`).join('\n')}`;

const OPTIONS = {
  port: { type: 'string', default: process.env.AGENTSTACK_CORE_PORT },
  interval: { type: 'string', default: process.env.AGENTSTACK_CORE_INTERVAL },
  'access-token-ttl': { type: 'string', default: process.env.AGENTSTACK_CORE_ACCESS_TOKEN_TTL },
  'device-code-ttl': { type: 'string' },
  'slow-down': { type: 'string' },
  'always-pending': { type: 'boolean' },
  'no-enforce-interval': { type: 'boolean' },
  fault: { type: 'string', multiple: true },
  'second-tool': { type: 'string' },
  'expire-sessions': { type: 'boolean' },
  'session-not-found-code': { type: 'string' },
  'session-not-found-status': { type: 'string' },
  'hostile-verification-uri': { type: 'string' },
  'no-discovery': { type: 'boolean' },
  'no-refresh-tokens': { type: 'boolean' },
  'no-icons': { type: 'boolean' },
  'bad-icon': { type: 'boolean' },
  'actions-count-mismatch': { type: 'boolean' },
  'connect-stub': { type: 'boolean' },
  'rest-tools-drift': { type: 'boolean' },
  'close-call-stream': { type: 'boolean' },
  'sse-retry-ms': { type: 'string' },
  variant: { type: 'string', multiple: true },
  'auto-approve': { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function usageError(message: string): never {
  console.error(`dev-core: ${message}\nRun with --help for usage.`);
  process.exit(2);
}

function parseCli() {
  try {
    return parseArgs({ args: process.argv.slice(2), options: OPTIONS });
  } catch (error) {
    // ERR_PARSE_ARGS_*: an unknown flag, a missing value or a stray argument; the message says which
    return usageError((error as Error).message);
  }
}
const { values } = parseCli();

if (values.help) {
  console.log(HELP);
  process.exit(0);
}

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) usageError(`--${name} must be an integer (got ${JSON.stringify(value)})`);
  return Number(value);
}

const faults: Partial<CoreFaults> = {};
const slowDown = int('slow-down', values['slow-down']);
if (slowDown !== undefined) faults.slowDown = slowDown;
if (values['always-pending']) faults.alwaysPending = true;
if (values['no-enforce-interval']) faults.enforceInterval = false;
const secondTool = values['second-tool'];
if (secondTool === 'same-page' || secondTool === 'page2') faults.secondTool = secondTool;
else if (secondTool !== undefined) usageError(`--second-tool must be same-page or page2 (got ${JSON.stringify(secondTool)})`);
if (values['expire-sessions']) faults.expireSessions = true;
const snf = int('session-not-found-code', values['session-not-found-code']);
if (snf !== undefined) faults.sessionNotFoundCode = snf;
const snfStatus = int('session-not-found-status', values['session-not-found-status']);
if (snfStatus !== undefined) faults.sessionNotFoundStatus = snfStatus;
if (values['hostile-verification-uri']) faults.hostileVerificationUri = values['hostile-verification-uri'];
if (values['no-discovery']) faults.noDiscovery = true;
if (values['no-refresh-tokens']) faults.noRefreshTokens = true;
if (values['no-icons']) faults.noIcons = true;
if (values['bad-icon']) faults.badIcon = true;
if (values['actions-count-mismatch']) faults.actionsCountMismatch = true;
if (values['connect-stub']) faults.connectStub = true;
if (values['rest-tools-drift']) faults.restToolsDrift = true;
if (values['close-call-stream']) faults.closeCallStream = true;
const retry = int('sse-retry-ms', values['sse-retry-ms']);
if (retry !== undefined) faults.sseRetryMs = retry;
for (const spec of values.fault ?? []) {
  const m = /^([a-z_]+)=(5xx|hang|reset|malformed|oversized|slow)(?::(\d+))?$/.exec(spec);
  if (!m || !ROUTE_NAMES.includes(m[1] as RouteName)) {
    usageError(`bad --fault ${spec}; expected ROUTE=KIND[:times] with ROUTE one of ${ROUTE_NAMES.join(', ')}`);
  }
  faults.endpointFaults = { ...faults.endpointFaults, [m[1]!]: { kind: m[2] as EndpointFaultKind, ...(m[3] ? { times: Number(m[3]) } : {}) } };
}

const variants: VariantName[] = [];
for (const name of values.variant ?? []) {
  if (!isVariantName(name)) usageError(`unknown --variant ${JSON.stringify(name)}; one of ${VARIANT_NAMES.join(', ')}`);
  variants.push(name);
}

const port = int('port', values.port);
let approve: ((userCode: string) => Promise<void>) | undefined;
const core = await startCore({
  variant: variants,
  port,
  interval: int('interval', values.interval),
  accessTokenTtl: int('access-token-ttl', values['access-token-ttl']),
  deviceCodeTtl: int('device-code-ttl', values['device-code-ttl']),
  faults,
  log: values.verbose ? (line) => console.error(line) : undefined,
  ...(values['auto-approve'] ? {
    onDeviceCode: (code: string) => void approve?.(code).then(() => console.log(`approved device code ${code}`), (error: unknown) => console.error(`could not approve ${code}: ${(error as Error).message}`)),
  } : {}),
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE' && error.code !== 'EACCES') throw error;
  const why = error.code === 'EADDRINUSE' ? 'is in use' : 'may not be used by this user';
  console.error(`dev-core: port ${port} on 127.0.0.1 ${why}; pick another with --port N, or leave --port out for a free one.`);
  process.exit(1);
});
approve = (code) => core.approve(code);
const account = core.accounts[0]!;
console.log(`AgentStack reference core: ${core.baseUrl}
  MCP:        ${core.mcpUrl}
  sign in as: ${account.email} / ${account.password}   (operator: ${core.accounts[1]!.email} / ${core.accounts[1]!.password})
  point the plugin at it:  AGENTSTACK_BASE_URL=${core.baseUrl}
  faults:     ${Object.keys(faults).length ? JSON.stringify(faults) : 'none'}
  variants:   ${variants.length ? variants.join(', ') : 'none'}${values['auto-approve'] ? '\n  every device code is approved as it is issued (--auto-approve)' : ''}
Ctrl-C to stop.`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) process.exit(1);
  stopping = true;
  core.close().then(
    () => {
      console.log(`\nstopped (${signal})`);
      process.exit(0);
    },
    () => process.exit(1),
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
