/**
 * Audits a folder: one plugin, or a marketplace repository plugin by plugin. Reads the files once, picks the profile
 * (AgentStack's rules for AgentStack's plugin, the generic layer for any other), runs the rules that apply.
 * Code from the audited folder runs only through freshnessOf, which refuses any folder but this repository's own.
 */
import type { Check } from '../../platform/report.js';
import { freshnessOf, type FreshnessOptions } from './freshness.js';
import { auditMarketplace, isMarketplace, type MarketplacePlugin } from './marketplace.js';
import { readPluginFiles, type PluginFiles } from './readPlugin.js';
import { manifestOf, type AuditContext, type AuditRule, type Profile } from './rule.js';
import { AUDIT_RULES } from './rules.js';

/** The plugin name that selects the AgentStack profile on its own. */
export const AGENTSTACK_PLUGIN_NAME = 'agentstack';
export const PROFILES = ['auto', 'generic', 'agentstack'] as const;
export type ProfileChoice = (typeof PROFILES)[number];

export interface AuditOptions extends FreshnessOptions {
  /** `auto` (default): AgentStack's profile when the plugin is named "agentstack", else generic. */
  profile?: ProfileChoice;
}

export function profileFor(p: PluginFiles, choice: ProfileChoice = 'auto'): Profile {
  if (choice !== 'auto') return choice;
  return manifestOf(p)?.name === AGENTSTACK_PLUGIN_NAME ? 'agentstack' : 'generic';
}

/** The rules of a profile that apply to the plugin, run. AgentStack's own plugin follows the advice: a WARN is a FAIL. */
export function runRules(p: PluginFiles, ctx: AuditContext, rules: readonly AuditRule[] = AUDIT_RULES): Check[] {
  return rules
    .filter((r) => (r.layer === 'generic' || ctx.profile === r.layer) && (!r.appliesTo || r.appliesTo(p)))
    .map((r) => {
      const check = r.run(p, ctx);
      return ctx.profile === 'agentstack' && check.status === 'WARN' ? { ...check, status: 'FAIL' as const } : check;
    });
}

export interface PluginAudit {
  dir: string;
  profile: Profile;
  checks: Check[];
}

export function auditPluginFolder(dir: string, options: AuditOptions = {}): PluginAudit {
  const files = readPluginFiles(dir);
  const profile = profileFor(files, options.profile);
  const freshness = profile === 'agentstack' ? freshnessOf(dir, options) : { mode: 'banner' as const, why: 'generic profile' };
  return { dir, profile, checks: runRules(files, { profile, freshness }) };
}

/** The checks of one plugin folder. */
export function auditPlugin(dir: string, options: AuditOptions = {}): Check[] {
  return auditPluginFolder(dir, options).checks;
}

export type AuditReport =
  | { kind: 'plugin'; dir: string; profile: Profile; checks: Check[] }
  | { kind: 'marketplace'; dir: string; profile: ProfileChoice; checks: Check[]; plugins: MarketplacePlugin[] };

/** A marketplace repository (it has .cursor-plugin/marketplace.json) plugin by plugin, else one plugin. */
export function auditFolder(dir: string, options: AuditOptions = {}): AuditReport {
  if (isMarketplace(dir)) {
    const { checks, plugins } = auditMarketplace(dir, (pluginDir) => auditPluginFolder(pluginDir, options));
    return { kind: 'marketplace', dir, profile: options.profile ?? 'auto', checks, plugins };
  }
  const audit = auditPluginFolder(dir, options);
  return { kind: 'plugin', ...audit };
}
