/**
 * diagnose-local's gates over Node, the installed plugin and ~/.cursor/mcp.json. Pure: each takes state already read
 * by state.ts and returns one Check whose `fix` says what to do in one line. Nothing secret is ever put in a Check.
 */
import { bearerOf, headerValue, isRealBearer } from '../../agentstack/mcpJson/credential.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import type { McpState, PluginState } from './state.js';
import { isObject } from '../../platform/text/isObject.js';
import { tilde } from '../../platform/text/tilde.js';
import { RESTORE_STEP, SIGN_IN_STEP, type Story } from '../../agentstack/state/story.js';
import type { AccountState } from '../../agentstack/state/account.js';
import { nodeEndOfLifeText, nodePastEndOfLife } from '../../agentstack/plugin/nodeReleases.js';

/** A row about a state the person chose (never signed in, signed out) is a WARN at most, never a FAIL. */
const chosen = (state: AccountState | undefined) => state === 'never_signed_in' || state === 'signed_out';

export const SIGN_IN = SIGN_IN_STEP;
export const RUN_FIX = 'Run diagnose-local --fix';
const MIN_NODE_MAJOR = 20;
const LEAN_KEYS = new Set(['type', 'url', 'headers', 'auth']);
const LEAN_HEADERS = new Set(['authorization', 'x-project-id', 'x-api-key']);

export const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;
export const notChecked = (id: string, why: string) => warn(id, `not checked: ${why}`);

const INSTALL_NODE = `Install Node ${MIN_NODE_MAJOR} or newer where Cursor finds it (README > Requirements), then restart Cursor`;
const majorOf = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

/**
 * Node running this script, and the `node` a hook would run: hooks start `node` from the PATH Cursor gives them,
 * which matches this one when Cursor was started from this shell (a Dock or Start-menu launch may differ).
 */
export function nodeGate(version: string, hookNode?: { path: string | null; version: string | null }, now = Date.now()): Check {
  if (majorOf(version) < MIN_NODE_MAJOR) return fail('node', `Node ${version} is older than ${MIN_NODE_MAJOR}`, INSTALL_NODE);
  if (!hookNode) return nodeEndOfLife(version, now) ?? pass('node', `Node ${version}`);
  if (!hookNode.path) {
    return warn('node', `Node ${version} runs this script, but no "node" is on this PATH: hooks run "node" from the PATH Cursor gives them`, INSTALL_NODE);
  }
  if (!hookNode.version) return warn('node', `hooks would run ${tilde(hookNode.path)}, which did not report its version`, INSTALL_NODE);
  if (majorOf(hookNode.version) < MIN_NODE_MAJOR) {
    return fail('node', `hooks would run ${tilde(hookNode.path)} (Node ${hookNode.version}), older than ${MIN_NODE_MAJOR}`, INSTALL_NODE);
  }
  const hooks = `hooks run ${tilde(hookNode.path)} (Node ${hookNode.version.replace(/^v/, '')}) when Cursor's PATH is this one`;
  const old = nodeEndOfLife(hookNode.version, now);
  // An old Node still names the node a hook would run: that is the one to replace.
  if (old) return { ...old, summary: `${old.summary}; ${hooks}` };
  return pass('node', `Node ${version}; ${hooks}`);
}

/** A WARN for a Node past its end of life (hooks still run on it; it gets no security fixes), else null. */
function nodeEndOfLife(version: string, now: number): Check | null {
  const past = nodePastEndOfLife(version, now);
  if (!past) return null;
  const { summary, fix } = nodeEndOfLifeText(version, past, now);
  return warn('node', summary, fix);
}

export function pluginInstalledGate(plugin: PluginState): Check {
  const id = 'plugin.installed';
  if (!plugin.install) {
    return warn(id, 'the AgentStack plugin is not installed under ~/.cursor/plugins (local or cache)',
      'Install it from the marketplace, or copy this folder to ~/.cursor/plugins/local/agentstack and restart Cursor');
  }
  const where = `${plugin.install.kind} ${tilde(plugin.install.dir)}${plugin.installs > 1 ? ` (${plugin.installs} installs; this one wins)` : ''}`;
  return plugin.manifestPointer === './mcp.json'
    ? pass(id, `${where}; mcpServers -> ./mcp.json`)
    : fail(id, `${where}: its manifest "mcpServers" is ${JSON.stringify(plugin.manifestPointer ?? null).slice(0, 60)}, not "./mcp.json"`,
      'Reinstall the plugin, or run refresh-cursor-runtime --fix');
}

export function shippedMcpGate(plugin: PluginState): Check {
  const id = 'plugin.mcp-json';
  if (!plugin.install) return notChecked(id, 'no installed plugin');
  if (!plugin.shippedProblems) return fail(id, `${tilde(plugin.install.dir)}/mcp.json is missing or not JSON`, 'Reinstall the plugin, or run refresh-cursor-runtime --fix');
  return plugin.shippedProblems.length
    ? fail(id, plugin.shippedProblems.join('; '), 'Reinstall the plugin, or run refresh-cursor-runtime --fix')
    : pass(id, "the plugin's own mcp.json is URL-only");
}

export function mcpReadableGate(mcp: McpState, story?: Pick<Story, 'next'>): Check {
  const id = 'mcp.readable';
  if (!mcp.exists) return pass(id, `${tilde(mcp.path)} does not exist yet (a sign-in creates it)`);
  if (mcp.error) return fail(id, mcp.error, story?.next ?? `Fix ${tilde(mcp.path)} by hand or move it aside`);
  return pass(id, `${tilde(mcp.path)} is valid JSON`);
}

/** The keys of the entry that a lean entry does not have (their names only, never their values). */
export function extraKeys(entry: Record<string, unknown>): string[] {
  const extra = Object.keys(entry).filter((k) => !LEAN_KEYS.has(k));
  if (isObject(entry.headers)) extra.push(...Object.keys(entry.headers).filter((h) => !LEAN_HEADERS.has(h.toLowerCase())).map((h) => `headers.${h}`));
  return extra;
}

export function mcpEntryGate(mcp: McpState, state?: AccountState): Check {
  const id = 'mcp.entry';
  if (!mcp.config) return notChecked(id, mcp.exists ? 'mcp.json is not readable' : 'mcp.json does not exist');
  if (!mcp.entry && state === 'entry_removed') return warn(id, 'mcp.json has no "agentstack" server; the stored refresh token restores it', RESTORE_STEP);
  if (!mcp.entry) return (chosen(state) ? warn : fail)(id, 'mcp.json has no "agentstack" server', SIGN_IN);
  const url = typeof mcp.entry.url === 'string' ? mcp.entry.url : '(no url)';
  if (!mcp.notLean) return pass(id, `lean "agentstack" entry -> ${url}`);
  const extra = extraKeys(mcp.entry);
  return warn(id, `the "agentstack" entry is not lean${extra.length ? ` (extra: ${extra.join(', ')})` : ' (type, url or headers need normalizing)'}`,
    `${RUN_FIX} (normalizes only the agentstack entry)`);
}

export function mcpNoToolsGate(mcp: McpState): Check {
  const id = 'mcp.no-tools';
  // A file that cannot be read hides whether the entry is there (mcp.readable says why).
  if (mcp.error) return notChecked(id, 'mcp.json cannot be read');
  if (!mcp.entry) return notChecked(id, 'no "agentstack" entry');
  return 'tools' in mcp.entry
    ? fail(id, 'the "agentstack" entry has a "tools" map (actions come from GET /mcp/actions)', `${RUN_FIX} to remove it`)
    : pass(id, 'no "tools" map in the "agentstack" entry');
}

export function mcpBearerGate(mcp: McpState, state?: AccountState): Check {
  const id = 'mcp.bearer';
  if (mcp.error) return notChecked(id, 'mcp.json cannot be read');
  if (!mcp.entry) return notChecked(id, 'no "agentstack" entry');
  const auth = headerValue(mcp.entry.headers, 'Authorization');
  if (isRealBearer(auth)) return pass(id, 'Authorization: Bearer is present');
  if (auth !== undefined) return fail(id, 'Authorization is empty or a placeholder (${...}, <token>, AGENTSTACK_ACCESS_TOKEN)', SIGN_IN);
  return headerValue(mcp.entry.headers, 'X-API-Key') !== undefined
    ? warn(id, 'signed in with an X-API-Key, no Bearer', 'Sign in with /agentstack-authorize for a token that refreshes itself')
    : (chosen(state) ? warn : fail)(id, 'no Authorization header (the account row says why)', SIGN_IN);
}

export function mcpModeGate(mcp: McpState, platform: NodeJS.Platform = process.platform): Check {
  const id = 'mcp.mode';
  if (platform === 'win32') return pass(id, 'file modes do not apply on Windows');
  if (mcp.mode === null) return notChecked(id, 'mcp.json does not exist');
  if ((mcp.mode & 0o077) === 0) return pass(id, `mode ${octal(mcp.mode)}`);
  // Without a credential in it the file still holds other servers' settings, but no AgentStack token to steal.
  return mcp.config && bearerOf(mcp.config)
    ? fail(id, `mode ${octal(mcp.mode)}: other users can read the token in ${tilde(mcp.path)}`, `${RUN_FIX} (chmod 600)`)
    : warn(id, `mode ${octal(mcp.mode)}: other users can read ${tilde(mcp.path)} (no AgentStack token in it now; a sign-in writes one)`, `${RUN_FIX} (chmod 600)`);
}
