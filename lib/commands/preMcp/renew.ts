/**
 * The pre-MCP hook's side of renewing the token while the person works: from what the credential notice already
 * reads (local files only), decide whether the Device Code Bearer is due for renewal (its end is near or passed, or
 * the server refused it) and, if so, start the detached renewal. The call itself is answered as usual; the next
 * call carries the new Bearer once Cursor rereads mcp.json.
 */
import { classifyCredential, refusedView, type McpConfig } from '../../agentstack/mcpJson/credential.js';
import { autoLoginDisabled } from '../../agentstack/settings/keys.js';
import { shouldRenew, startRenewal } from '../../agentstack/renewal/due.js';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import { credentialFacts } from './credentialNotice.js';

export interface RenewArgs {
  paths: CursorPaths;
  config: McpConfig;
  /** The environment with the settings applied. */
  env: NodeJS.ProcessEnv;
  /** The environment the renewal process is started with (it applies the settings itself). */
  processEnv: NodeJS.ProcessEnv;
  pluginRoot?: string;
  now: number;
  log: (message: string) => void;
}

/** Starts a renewal when one is due; what it did, in a word (for the log). */
export function renewIfDue(args: RenewArgs): 'started' | 'recent' | 'failed' | 'not_due' {
  if (!args.pluginRoot) return 'not_due';
  const { facts, stored } = credentialFacts({ paths: args.paths, config: args.config, env: args.env, now: args.now });
  // A Bearer the server refused (recorded beside the snapshot, a file the hook already reads) is due whatever its own end says.
  const credential = refusedView(classifyCredential({ config: args.config, storedExpiresAt: facts.refreshable ? stored?.expires_at ?? null : null, now: args.now }), facts.refused, args.now);
  const due = shouldRenew({ credential, refreshable: facts.refreshable, belongs: facts.belongs, signedOut: facts.signedOut, autoLoginOff: autoLoginDisabled(args.env), now: args.now });
  if (!due) return 'not_due';
  const started = startRenewal({ paths: args.paths, script: `${args.pluginRoot}/hooks/scripts/session-start.cjs`, env: args.processEnv, now: args.now });
  if (started === 'started') args.log('the token is due for renewal; renewing it in the background');
  return started;
}
