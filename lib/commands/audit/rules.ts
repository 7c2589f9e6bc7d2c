/**
 * Every audit rule, in the order the report shows them: the generic layer (any Cursor plugin), then AgentStack's.
 * A rule's row appears only where it applies (no MCP rows for a plugin without servers, no hook rows without hooks).
 */
import {
  bundlesFreshRule, connectEndpointRule, inlineMcpServersRule, mcpHeadersRule, mcpPlaceholderRule, mcpServersPointerRule,
  mcpUrlRule, minClientVersionRule, placeholderAuthRule, secondToolRule, signInRuleRule, toolsMapRule,
} from './agentstackRules.js';
import {
  agentsFrontmatterRule, commandsFrontmatterRule, hasHooks, hooksAnchoredRule, hooksFormatRule, hooksTargetsRule,
  hooksTimeoutsRule, logoRule, rulesFrontmatterRule, skillsFrontmatterRule,
} from './componentRules.js';
import { bundlesSelfContainedRule, hasBundles, secretsRule } from './fileRules.js';
import { manifestFieldsRule, manifestKeysRule, manifestNameRule, manifestPathsRule, versionsRule } from './manifestRules.js';
import { hasAuth, hasMcp, mcpAuthRule, mcpSchemaKeyRule, mcpServersRule, mcpVariablesRule } from './mcpRules.js';
import type { PluginFiles } from './readPlugin.js';
import type { AuditRule } from './rule.js';

const some = (key: 'commands' | 'skills' | 'rules' | 'agents') => (p: PluginFiles) => p[key].length > 0;

export const AUDIT_RULES: readonly AuditRule[] = [
  { id: 'manifest.keys', layer: 'generic', run: manifestKeysRule },
  { id: 'manifest.name', layer: 'generic', run: manifestNameRule },
  { id: 'manifest.fields', layer: 'generic', run: manifestFieldsRule },
  { id: 'manifest.paths', layer: 'generic', run: manifestPathsRule },
  { id: 'versions', layer: 'generic', run: versionsRule },
  { id: 'mcp.no-$schema', layer: 'generic', appliesTo: hasMcp, run: mcpSchemaKeyRule },
  { id: 'mcp.servers', layer: 'generic', appliesTo: hasMcp, run: mcpServersRule },
  { id: 'mcp.variables', layer: 'generic', appliesTo: hasMcp, run: mcpVariablesRule },
  { id: 'mcp.auth', layer: 'generic', appliesTo: hasAuth, run: mcpAuthRule },
  { id: 'hooks.format', layer: 'generic', appliesTo: hasHooks, run: hooksFormatRule },
  { id: 'hooks.anchored', layer: 'generic', appliesTo: hasHooks, run: hooksAnchoredRule },
  { id: 'hooks.timeouts', layer: 'generic', appliesTo: hasHooks, run: hooksTimeoutsRule },
  { id: 'hooks.targets', layer: 'generic', appliesTo: hasHooks, run: hooksTargetsRule },
  { id: 'commands.frontmatter', layer: 'generic', appliesTo: some('commands'), run: commandsFrontmatterRule },
  { id: 'skills.frontmatter', layer: 'generic', appliesTo: some('skills'), run: skillsFrontmatterRule },
  { id: 'rules.frontmatter', layer: 'generic', appliesTo: some('rules'), run: rulesFrontmatterRule },
  { id: 'agents.frontmatter', layer: 'generic', appliesTo: some('agents'), run: agentsFrontmatterRule },
  { id: 'logo', layer: 'generic', run: logoRule },
  { id: 'bundles.self-contained', layer: 'generic', appliesTo: hasBundles, run: bundlesSelfContainedRule },
  { id: 'secrets', layer: 'generic', run: secretsRule },

  { id: 'manifest.mcpServers', layer: 'agentstack', run: mcpServersPointerRule },
  { id: 'mcp.no-headers', layer: 'agentstack', run: mcpHeadersRule },
  { id: 'mcp.no-placeholders', layer: 'agentstack', run: mcpPlaceholderRule },
  { id: 'mcp.url', layer: 'agentstack', run: mcpUrlRule },
  { id: 'bundles.fresh', layer: 'agentstack', run: bundlesFreshRule },
  { id: 'antipattern.inline-mcpServers', layer: 'agentstack', run: inlineMcpServersRule },
  { id: 'antipattern.tools-map', layer: 'agentstack', run: toolsMapRule },
  { id: 'antipattern.placeholder-auth', layer: 'agentstack', run: placeholderAuthRule },
  { id: 'antipattern.second-tool', layer: 'agentstack', run: secondToolRule },
  { id: 'antipattern.connect-endpoint', layer: 'agentstack', run: connectEndpointRule },
  { id: 'manifest.minClientVersions', layer: 'agentstack', run: minClientVersionRule },
  { id: 'agent.sign-in-rule', layer: 'agentstack', run: signInRuleRule },
];
