/**
 * What an audit rule is. Two layers: `generic` rules hold for any Cursor plugin (FAIL only for what Cursor's
 * validator rejects or what breaks in Cursor, WARN for advice); `agentstack` rules hold AgentStack's plugin to its
 * own contract and run only in that profile, where the generic layer's advice (WARN) is a FAIL too.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import type { JsonDoc, PluginFiles } from './readPlugin.js';

export type Profile = 'generic' | 'agentstack';

/** How fresh the bundles are: compared byte for byte with a rebuild, or (no rebuild) by their banner. */
export type Freshness =
  | { mode: 'rebuilt'; stale: string[] }
  | { mode: 'banner'; why: string }
  | { mode: 'error'; message: string };

export interface AuditContext {
  profile: Profile;
  freshness: Freshness;
}

export interface AuditRule {
  id: string;
  layer: Profile;
  /** When false the rule does not concern this plugin (no MCP server, no hooks…) and shows no row. */
  appliesTo?: (p: PluginFiles) => boolean;
  run: (p: PluginFiles, ctx: AuditContext) => Check;
}

export const list = (items: string[], max = 4) => (items.length > max ? `${items.slice(0, max).join('; ')}; …(${items.length - max} more)` : items.join('; '));

/** Why a JSON document cannot be judged (missing, not JSON, not an object), or null. */
export function docProblem(doc: JsonDoc): string | null {
  if (!doc.exists) return `${doc.path} is missing`;
  if (doc.error) return `${doc.path} is not valid JSON (${doc.error})`;
  if (!isObject(doc.value)) return `${doc.path} is not a JSON object`;
  return null;
}

export const manifestOf = (p: PluginFiles) => (isObject(p.manifest.value) ? p.manifest.value : null);

/** What a rule found: `rejects` (Cursor's validator rejects it, or it cannot work in Cursor) and `advice` (the docs ask for it, Cursor loads it anyway). */
export type Findings = { rejects: string[]; advice: string[] };

/** FAIL on any reject (advice listed after it), else WARN on advice, else PASS. */
export function verdict(id: string, found: Findings, words: { pass: string; fix: string; adviceFix?: string; max?: number }): Check {
  const all = [...found.rejects, ...found.advice];
  if (found.rejects.length) return fail(id, list(all, words.max), words.fix, { problems: found.rejects, advice: found.advice });
  if (found.advice.length) return warn(id, list(all, words.max), words.adviceFix ?? words.fix, { advice: found.advice });
  return pass(id, words.pass);
}
