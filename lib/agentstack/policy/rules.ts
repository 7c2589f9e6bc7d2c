/**
 * The per-action rules a person sets (`policy`, `ask-actions`, `deny-actions`): their syntax, pure and small (the
 * pre-MCP hook imports it). A rule is an action name or glob (`storage.*`, `projects.delete`, `*.purge`) or, when it
 * holds a colon, a capability name or glob (`projects:admin`, `*:admin`). `*` stands for any run of characters,
 * dots included; matching ignores case, so a rule never misses an action over its spelling.
 */
import { PluginError } from '../../platform/errors.js';
import { hasHiddenCharacters } from '../../platform/text/displayText.js';

export const POLICY_PRESETS = ['default', 'confirm-writes', 'readonly'] as const;
export type PolicyPreset = (typeof POLICY_PRESETS)[number];
export const DEFAULT_POLICY: PolicyPreset = 'default';

export const MAX_RULES = 100;
const MAX_RULE_LENGTH = 200;

export function isPolicyPreset(value: string): value is PolicyPreset {
  return (POLICY_PRESETS as readonly string[]).includes(value);
}

export function parsePolicyPreset(value: string, source: string): string {
  const v = value.trim();
  if (isPolicyPreset(v)) return v;
  throw new PluginError('invalid_config', `${source} must be one of ${POLICY_PRESETS.join(', ')} (got ${JSON.stringify(value.slice(0, 40))})`);
}

/**
 * A comma-separated list of rules, returned normalized (`a,b`). Refused: control or invisible characters, an empty
 * entry (`a,,b`, a trailing comma), white space inside an entry, more than MAX_RULES entries, an entry over 200
 * characters.
 */
export function parseRuleList(value: string, source: string): string {
  if (hasHiddenCharacters(value)) throw new PluginError('invalid_config', `${source} holds control or invisible characters; type the names plainly`);
  const entries = value.split(',').map((e) => e.trim());
  if (entries.some((e) => e === '')) {
    throw new PluginError('invalid_config', `${source} has an empty entry; separate action names or globs with single commas (e.g. "storage.*,projects.delete")`);
  }
  const spaced = entries.find((e) => /\s/.test(e));
  if (spaced !== undefined) throw new PluginError('invalid_config', `${source}: ${JSON.stringify(spaced.slice(0, 60))} holds white space; separate entries with commas`);
  const long = entries.find((e) => e.length > MAX_RULE_LENGTH);
  if (long !== undefined) throw new PluginError('invalid_config', `${source}: an entry is longer than ${MAX_RULE_LENGTH} characters`);
  if (entries.length > MAX_RULES) throw new PluginError('invalid_config', `${source} has ${entries.length} entries; at most ${MAX_RULES}`);
  return [...new Set(entries)].join(',');
}

/** The entries of a normalized list (empty for none). */
export function ruleEntries(list: string | null | undefined): string[] {
  return list ? list.split(',') : [];
}

/** A rule with a colon names a capability (`projects:admin`); any other names actions. */
export function isCapabilityRule(rule: string): boolean {
  return rule.includes(':');
}

/** Whether a rule applies to an action whose required capability is known (`cap` null: it needs none). */
export function ruleMatches(rule: string, action: string, cap: string | null): boolean {
  if (!isCapabilityRule(rule)) return globMatches(rule, action);
  return cap !== null && globMatches(rule, cap);
}

/**
 * Whether `text` matches `glob` (`*` = any run of characters), ignoring case. Linear backtracking on the last `*`:
 * no regular expression is built from what a person typed.
 */
export function globMatches(glob: string, text: string): boolean {
  const g = glob.toLowerCase();
  const t = text.toLowerCase();
  let gi = 0;
  let ti = 0;
  let star = -1;
  let resume = 0;
  while (ti < t.length) {
    if (gi < g.length && g[gi] === '*') {
      star = gi++;
      resume = ti;
    } else if (gi < g.length && g[gi] === t[ti]) {
      gi++;
      ti++;
    } else if (star >= 0) {
      gi = star + 1;
      ti = ++resume;
    } else {
      return false;
    }
  }
  while (gi < g.length && g[gi] === '*') gi++;
  return gi === g.length;
}
