/**
 * Audit rules over the plugin's other files: hooks, bundles, commands, logo, secrets and the text anti-patterns.
 * Pure: each takes the files read by readPluginFiles and returns one Check.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { EXECUTE_TOOL_ALIAS } from '../../agentstack/server/toolNames.js';
import { bareImports, bannerEntry } from './bundleRules.js';
import { pngSize } from './png.js';
import { checkHooksJson } from './pluginRules.js';
import type { PluginFiles } from './readPlugin.js';
import { findSecretLike } from './secretScan.js';

const list = (items: string[], max = 4) => (items.length > max ? `${items.slice(0, max).join('; ')}; …(${items.length - max} more)` : items.join('; '));

function hooksOf(p: PluginFiles) {
  if (!p.hooksJson) return null;
  if (!p.hooksJson.exists) return { problems: [`${p.hooksJson.path} is missing`], commands: [] };
  if (p.hooksJson.error) return { problems: [`${p.hooksJson.path} is not valid JSON`], commands: [] };
  return checkHooksJson(p.hooksJson.value);
}

export function hooksAnchoredRule(p: PluginFiles): Check {
  const id = 'hooks.anchored';
  const hooks = hooksOf(p);
  if (!hooks) return pass(id, 'the plugin declares no hooks');
  const problems = hooks.problems.filter((m) => !/timeout/.test(m));
  return problems.length
    ? fail(id, list(problems), 'Write each command as node "${CURSOR_PLUGIN_ROOT}/hooks/scripts/<name>.cjs"')
    : pass(id, `${hooks.commands.length} hook command(s) anchored at \${CURSOR_PLUGIN_ROOT}`);
}

export function hooksTimeoutsRule(p: PluginFiles): Check {
  const id = 'hooks.timeouts';
  const hooks = hooksOf(p);
  if (!hooks) return pass(id, 'the plugin declares no hooks');
  const problems = hooks.problems.filter((m) => /timeout/.test(m));
  return problems.length
    ? fail(id, list(problems), 'Give every hook a "timeout" in seconds')
    : pass(id, 'every hook has a timeout');
}

export function hooksTargetsRule(p: PluginFiles): Check {
  const id = 'hooks.targets';
  const hooks = hooksOf(p);
  if (!hooks) return pass(id, 'the plugin declares no hooks');
  const files = new Set(p.files);
  const missing = hooks.commands.filter((c) => c.script && !files.has(c.script)).map((c) => `${c.event}: ${c.script}`);
  return missing.length
    ? fail(id, `hook scripts missing: ${list(missing)}`, 'Run npm run build and ship the bundles, or fix the path')
    : pass(id, 'every hook command points at a file that exists');
}

export function bundlesSelfContainedRule(p: PluginFiles): Check {
  const id = 'bundles.self-contained';
  const bad = p.bundles.map((b) => ({ path: b.path, bare: bareImports(b.text) })).filter((b) => b.bare.length);
  if (!p.bundles.length) return warn(id, 'no bundled scripts (.mjs, .cjs) under hooks/ or scripts/');
  return bad.length
    ? fail(id, list(bad.map((b) => `${b.path} imports ${b.bare.slice(0, 3).join(', ')}`)), 'Bundle every dependency (npm run build): Cursor installs plugins without npm install', bad)
    : pass(id, `${p.bundles.length} bundle(s) import only node: built-ins`);
}

/** How fresh the bundles are: compared byte for byte with a rebuild, or (no build tooling) by their banner. */
export type Freshness =
  | { mode: 'rebuilt'; stale: string[] }
  | { mode: 'banner' }
  | { mode: 'error'; message: string };

export function bundlesFreshRule(p: PluginFiles, freshness: Freshness): Check {
  const id = 'bundles.fresh';
  if (freshness.mode === 'error') return fail(id, `could not rebuild the bundles: ${freshness.message}`, 'Run npm ci, then npm run build');
  if (freshness.mode === 'rebuilt') {
    return freshness.stale.length
      ? fail(id, `stale bundle(s): ${list(freshness.stale)}`, 'Run npm run build and commit the bundles with their sources')
      : pass(id, 'every bundle is byte-identical to a fresh build');
  }
  const noBanner = p.bundles.filter((b) => !bannerEntry(b.text)).map((b) => b.path);
  return noBanner.length
    ? fail(id, `bundle(s) without the generated banner: ${list(noBanner)}`, 'Ship only bundles produced by npm run build')
    : pass(id, `no build tooling here; ${p.bundles.length} bundle(s) carry the generated banner`);
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/;

export function commandsFrontmatterRule(p: PluginFiles): Check {
  const id = 'commands.frontmatter';
  const bad: string[] = [];
  for (const c of p.commands) {
    const front = FRONTMATTER.exec(c.text)?.[1];
    if (front === undefined) bad.push(`${c.path} has no frontmatter`);
    else if (!/^name:\s*[a-z0-9][a-z0-9-]*\s*$/m.test(front)) bad.push(`${c.path} has no kebab-case name`);
    else if (!/^description:\s*\S.{5,}$/m.test(front)) bad.push(`${c.path} has no description`);
  }
  return bad.length
    ? fail(id, list(bad), 'Start each command with ---, name: <kebab-case>, description: <one line>, ---')
    : pass(id, `${p.commands.length} command(s) have name and description`);
}

export const LOGO_LIMITS = { minPx: 64, maxPx: 1024, maxBytes: 512 * 1024 } as const;

export function logoRule(p: PluginFiles): Check {
  const id = 'logo';
  if (!p.logo) return warn(id, 'plugin.json names no logo', 'Add "logo": "assets/logo.png" (a square PNG, 128-512 px)');
  if (!p.logo.bytes) return fail(id, `logo ${p.logo.path} is missing`, 'Ship the PNG the manifest names');
  const size = pngSize(p.logo.bytes);
  if (!size) return fail(id, `logo ${p.logo.path} is not a PNG`, 'Use a PNG: SVG and other formats render blank in Cursor');
  const { width, height } = size;
  const sane = width === height && width >= LOGO_LIMITS.minPx && width <= LOGO_LIMITS.maxPx && p.logo.bytes.length <= LOGO_LIMITS.maxBytes;
  return sane
    ? pass(id, `logo is a ${width}x${height} PNG (${p.logo.bytes.length} bytes)`)
    : fail(id, `logo is ${width}x${height}, ${p.logo.bytes.length} bytes`, `Use a square PNG of ${LOGO_LIMITS.minPx}-${LOGO_LIMITS.maxPx} px under ${LOGO_LIMITS.maxBytes / 1024} KB`);
}

export function secretsRule(p: PluginFiles): Check {
  const id = 'secrets';
  const found = p.texts.flatMap((t) => findSecretLike(t.text).map((f) => `${t.path}:${f.line} ${f.kind} ${f.masked}`));
  return found.length
    ? fail(id, `secret-looking strings: ${list(found)}`, 'Remove them and rotate any real credential', found)
    : pass(id, `no secret-looking strings in ${p.texts.length} text files`);
}

/** Anti-pattern: the alias registered or advertised as a second tool (Cursor then shows two, or drops one). */
export function secondToolRule(p: PluginFiles): Check {
  const id = 'antipattern.second-tool';
  const hits = p.surface.filter((t) => t.text.includes(EXECUTE_TOOL_ALIAS)).map((t) => t.path);
  return hits.length
    ? fail(id, `${EXECUTE_TOOL_ALIAS} appears as a tool in ${hits.join(', ')}`, 'Name only agentstack.execute: the server has exactly one tool')
    : pass(id, `no second tool name (${EXECUTE_TOOL_ALIAS}) in the plugin surface`);
}

const CONNECT_ANTIPATTERN = '/mcp/.well-known/oauth-authorize';

/** Anti-pattern: a home-made Connect endpoint; Cursor's Connect uses RFC 9728 and RFC 8414 discovery. */
export function connectEndpointRule(p: PluginFiles): Check {
  const id = 'antipattern.connect-endpoint';
  const hits = p.surface.filter((t) => t.text.includes(CONNECT_ANTIPATTERN)).map((t) => t.path);
  return hits.length
    ? fail(id, `${hits.join(', ')} use(s) ${CONNECT_ANTIPATTERN}`, 'Let Connect use OAuth discovery (/.well-known/oauth-protected-resource/mcp)')
    : pass(id, `no native Connect endpoint (${CONNECT_ANTIPATTERN})`);
}
