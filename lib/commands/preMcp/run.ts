/**
 * The beforeMCPExecution hook's I/O for execute calls: the files it reads (mcp.json for the Bearer and the server's
 * url, then the snapshot) and the decision. Runs before every AgentStack call, so only node built-ins, zod/mini and
 * pure code are in its bundle (no HTTP client, no OAuth client, no MCP SDK).
 */
import { DEFAULT_BASE_URL, baseUrlFromMcpUrl, resolveBaseUrl } from '../../agentstack/server/baseUrl.js';
import { decodeJwtClaims } from '../../agentstack/auth/jwt.js';
import { bearerOf, type McpConfig } from '../../agentstack/mcpJson/credential.js';
import { readMcpConfigFile } from '../../agentstack/mcpJson/file.js';
import { cursorPaths } from '../../agentstack/server/paths.js';
import { BeforeMcpInputSchema } from '../../schemas/hooks.js';
import { MCP_SERVER_KEY } from '../../agentstack/server/toolNames.js';
import { NEUTRAL, decidePreMcp, parseExecuteArgs, type PreMcpAnswer } from './decide.js';
import { isAgentStackServer, isExecuteCall, splitToolName } from './identify.js';
import { unreadableReason } from './front.js';
import { readSnapshotIndex } from '../../agentstack/snapshot/actionIndex.js';
import { applySettings } from '../../agentstack/settings/effective.js';
import { displayLines } from '../../platform/text/displayText.js';
import { credentialNoticeFor } from './credentialNotice.js';
import { policyInEffect } from '../../agentstack/policy/effective.js';
import { decidePolicy, policySteps, strictest } from './policy.js';

/** The messages quote action names from the call and the server's snapshot: no hidden characters reach anyone. */
function shownSafely(answer: PreMcpAnswer): PreMcpAnswer {
  if (!answer.permission) return answer;
  const out: PreMcpAnswer = { ...answer };
  if (out.user_message !== undefined) out.user_message = displayLines(out.user_message);
  if (out.agent_message !== undefined) out.agent_message = displayLines(out.agent_message);
  return out;
}

export interface RunPreMcpOptions {
  env?: NodeJS.ProcessEnv;
  now?: number;
  pluginRoot?: string;
  log?: (message: string) => void;
}

function readConfig(path: string, log: (m: string) => void): McpConfig {
  try {
    return readMcpConfigFile(path).config;
  } catch (error) {
    log(`cannot read ${path}: ${(error as Error).message}`);
    return {};
  }
}

/** The bases that identify AgentStack by url: the mcp.json entry's, AGENTSTACK_BASE_URL's (or the setting's), the default. */
export function knownBaseUrls(config: McpConfig, env: NodeJS.ProcessEnv): string[] {
  const bases = new Set<string>([DEFAULT_BASE_URL]);
  const servers = config.mcpServers as Record<string, { url?: unknown } | undefined> | undefined;
  const fromEntry = baseUrlFromMcpUrl(servers?.[MCP_SERVER_KEY]?.url);
  if (fromEntry) bases.add(fromEntry);
  try {
    bases.add(resolveBaseUrl(env));
  } catch { /* an invalid AGENTSTACK_BASE_URL identifies nothing */ }
  return [...bases];
}

/**
 * A call the hook could not read whole (`raw` holds only the top-level names it saw): an AgentStack execute call,
 * or one whose tool or server it cannot name, gets `ask`; one it can see goes elsewhere gets `{}`.
 */
function unreadableCall(raw: Record<string, unknown>, why: string, env: NodeJS.ProcessEnv, log: (m: string) => void): PreMcpAnswer {
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const toolName = str(raw.tool_name);
  if (toolName !== null) {
    if (!isExecuteCall({ tool_name: toolName })) return NEUTRAL;
    const target = { tool_name: toolName, url: str(raw.url), mcp_server_name: str(raw.mcp_server_name) };
    const named = target.url !== null || target.mcp_server_name !== null || splitToolName(toolName).server !== null;
    if (named && !isAgentStackServer(target, knownBaseUrls(readConfig(cursorPaths(env).mcpJson, log), env))) return NEUTRAL;
  }
  log(`ask: the call could not be read (${why})`);
  return {
    permission: 'ask',
    user_message: `AgentStack could not read this MCP call (${why}), so its actions were not checked. Allow only if you expect this call.`,
    agent_message: `The AgentStack pre-call check could not read this call (${why}). Split the work into smaller agentstack.execute calls.`,
  };
}

/** Checks an execute call (the hook's entry answers every other call itself, before this module is loaded). */
export function runPreMcp(raw: Record<string, unknown> | null, options: RunPreMcpOptions = {}): PreMcpAnswer {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const unreadable = unreadableReason(raw);
  if (raw && unreadable !== null) return unreadableCall(raw, unreadable, env, log);
  const parsed = BeforeMcpInputSchema.safeParse(raw);
  if (!parsed.success) {
    log('stdin is not a beforeMCPExecution JSON object; answering neutral');
    return NEUTRAL;
  }
  const input = parsed.data;
  if (!isExecuteCall(input)) return NEUTRAL;

  const paths = cursorPaths(env);
  const config = readConfig(paths.mcpJson, log);
  // The base-url setting identifies AgentStack too (environment > settings file); a broken file is only logged.
  const settings = applySettings(env);
  for (const problem of settings.problems) log(problem);
  const bases = knownBaseUrls(config, settings.env);
  if (!isAgentStackServer(input, bases)) return NEUTRAL;
  const bearer = bearerOf(config);
  const parsedArgs = parseExecuteArgs(input.tool_input);
  const wanted = parsedArgs.kind === 'ok' ? new Set(parsedArgs.args.steps.map((s) => s.action)) : new Set<string>();
  const snapshot = readSnapshotIndex(paths.capabilities, wanted);
  const checked = decidePreMcp({
    input,
    snapshot,
    claims: bearer ? decodeJwtClaims(bearer) : null,
    now: options.now ?? Date.now(),
    knownBaseUrls: bases,
    pluginRoot: options.pluginRoot,
  });
  // The person's per-action rules (settings `policy`, `ask-actions`, `deny-actions`) can only make it stricter.
  const policy = policyInEffect(settings.rows, settings.file);
  const ruled = decidePolicy(policy, policySteps(parsedArgs, snapshot), { pluginRoot: options.pluginRoot });
  // A Device Code credential that cannot work is said before the checks that read it (ask, at most once per state
  // every ten minutes); only the person's own deny rule comes first.
  if (ruled.permission !== 'deny') {
    const notice = credentialNoticeFor({ paths, config, env: settings.env, serverName: input.mcp_server_name ?? splitToolName(input.tool_name).server, now: options.now ?? Date.now(), log });
    if (notice) return shownSafely(notice);
  }
  const answer = strictest(checked, ruled);
  if (answer.permission) log(`${answer.permission}: ${answer.agent_message ?? ''}`);
  return shownSafely(answer);
}
