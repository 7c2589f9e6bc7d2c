/**
 * Generic rules over a plugin's components: hooks, the frontmatter of commands, skills, rules and agents, and the
 * logo. Pure: each takes the files read by readPluginFiles and returns one Check.
 */
import { posix } from 'node:path';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { parseFrontmatter, stringField } from './formats/frontmatter.js';
import { readHooks, type HooksRead } from './formats/hooksFile.js';
import { NAME_PATTERN } from './formats/manifestSchema.js';
import { pngSize } from './png.js';
import type { PluginFiles, TextFile } from './readPlugin.js';
import { docProblem, list, verdict } from './rule.js';
import { svgInfo } from './formats/svg.js';

export const hasHooks = (p: PluginFiles) => p.hooksJson !== null;

function hooksOf(p: PluginFiles): HooksRead & { broken: string | null } {
  const doc = p.hooksJson!;
  const broken = docProblem(doc);
  return broken ? { broken, problems: [], commands: [], prompts: 0 } : { broken: null, ...readHooks(doc.value, doc.path) };
}

export function hooksFormatRule(p: PluginFiles): Check {
  const id = 'hooks.format';
  const hooks = hooksOf(p);
  const problems = hooks.broken ? [hooks.broken] : hooks.problems;
  return problems.length
    ? fail(id, list(problems), 'Write hooks as {"version": 1, "hooks": {"<event>": [{"command": "…"}]}} (or {"type": "prompt", "prompt": "…"})')
    : pass(id, `${hooks.commands.length} hook command(s)${hooks.prompts ? ` and ${hooks.prompts} prompt hook(s)` : ''} in ${p.hooksJson!.path}`);
}

export function hooksAnchoredRule(p: PluginFiles): Check {
  const id = 'hooks.anchored';
  const loose = hooksOf(p).commands.filter((c) => !c.anchored && c.script).map((c) => `${c.event}: ${c.command}`);
  return loose.length
    ? warn(id, `relative hook path(s), run from a working directory Cursor does not document: ${list(loose)}`, 'Anchor each script at ${CURSOR_PLUGIN_ROOT}: node "${CURSOR_PLUGIN_ROOT}/hooks/<name>.cjs"')
    : pass(id, 'every hook script is anchored at ${CURSOR_PLUGIN_ROOT}');
}

export function hooksTimeoutsRule(p: PluginFiles): Check {
  const id = 'hooks.timeouts';
  const open = hooksOf(p).commands.filter((c) => c.timeout === null).map((c) => c.event);
  return open.length
    ? warn(id, `hook(s) without a "timeout": ${list([...new Set(open)])}`, 'Give each hook a "timeout" in seconds so a hung script cannot stall the editor')
    : pass(id, 'every hook has a timeout');
}

export function hooksTargetsRule(p: PluginFiles): Check {
  const id = 'hooks.targets';
  const files = new Set(p.files);
  const commands = hooksOf(p).commands.filter((c) => c.script);
  const missing = commands.filter((c) => !files.has(posix.normalize(c.script!))).map((c) => `${c.event}: ${c.script}`);
  return missing.length
    ? fail(id, `hook scripts missing: ${list(missing)}`, 'Ship the script the hook runs, or fix its path')
    : pass(id, `${commands.length} hook script(s) exist in the plugin`);
}

type Judge = (file: TextFile, fields: Record<string, unknown>) => string | null;

/** Frontmatter problems of each file; `missing` decides what a file without frontmatter gets. */
function frontmatterProblems(files: TextFile[], judge: Judge, missing: string | null): string[] {
  const out: string[] = [];
  for (const f of files) {
    const front = parseFrontmatter(f.text);
    if (front.kind === 'none') { if (missing) out.push(`${f.path} ${missing}`); continue; }
    if (front.kind === 'invalid') { out.push(`${f.path} frontmatter line ${front.line}: ${front.reason}`); continue; }
    const problem = judge(f, front.fields);
    if (problem) out.push(`${f.path} ${problem}`);
  }
  return out;
}

const nameAndDescription: Judge = (_f, fields) => {
  if (!stringField(fields, 'name')) return 'has no "name"';
  if (!stringField(fields, 'description')) return 'has no "description"';
  return null;
};

export function commandsFrontmatterRule(p: PluginFiles): Check {
  const id = 'commands.frontmatter';
  const bad = frontmatterProblems(p.commands, (f, fields) => {
    const name = stringField(fields, 'name');
    if (name !== null && !NAME_PATTERN.test(name)) return `"name" ${JSON.stringify(name)} is not kebab-case`;
    return stringField(fields, 'description') ? null : 'has no "description"';
  }, 'has no frontmatter');
  return bad.length
    ? warn(id, list(bad), 'Start each command with ---, name: <kebab-case>, description: <one line>, ---')
    : pass(id, `${p.commands.length} command(s) have a description`);
}

/**
 * Skills. Without frontmatter or a `description` the agent has nothing to choose the skill by: FAIL. The docs ask
 * for a `name` in kebab-case equal to the skill's folder, but Cursor's validator does not read skills and Cursor
 * loads one named otherwise ("Poteto Mode"): a WARN that quotes the doc's rule.
 */
export function skillsFrontmatterRule(p: PluginFiles): Check {
  const advice: string[] = [];
  const rejects = frontmatterProblems(p.skills, (f, fields) => {
    if (!stringField(fields, 'description')) return 'has no "description"';
    const name = stringField(fields, 'name');
    const folder = posix.basename(posix.dirname(f.path));
    if (name === null) advice.push(`${f.path} has no "name"`);
    else if (!NAME_PATTERN.test(name)) advice.push(`${f.path} "name" ${JSON.stringify(name)} is not kebab-case`);
    else if (folder !== name && folder !== '.' && folder !== 'skills') advice.push(`${f.path} "name" ${JSON.stringify(name)} differs from its folder "${folder}"`);
    return null;
  }, 'has no frontmatter (name, description)');
  return verdict('skills.frontmatter', { rejects, advice }, {
    pass: `${p.skills.length} skill(s) have name and description`,
    fix: 'Start each SKILL.md with ---, name: <folder name>, description: <what it does and when>, ---',
    adviceFix: 'The docs ask for a "name" in lowercase kebab-case equal to the skill\'s folder (name: <folder name>)',
  });
}

/** Rules (.mdc): `description` a string, `alwaysApply` a boolean, `globs` a string or list; else Cursor cannot read them. */
export function rulesFrontmatterRule(p: PluginFiles): Check {
  const id = 'rules.frontmatter';
  const never: string[] = [];
  const bad = frontmatterProblems(p.rules, (f, fields) => {
    const { description, alwaysApply, globs } = fields;
    if (description != null && typeof description !== 'string') return '"description" must be a string';
    if (alwaysApply != null && typeof alwaysApply !== 'boolean') return '"alwaysApply" must be true or false';
    if (globs != null && typeof globs !== 'string' && !(Array.isArray(globs) && globs.every((g) => typeof g === 'string'))) return '"globs" must be a string or a list';
    if (alwaysApply !== true && !globs && !stringField(fields, 'description')) never.push(f.path);
    return null;
  }, null);
  const bare = p.rules.filter((r) => parseFrontmatter(r.text).kind === 'none').map((r) => r.path);
  if (bad.length) return fail(id, list(bad), 'Give each rule ---, description: …, alwaysApply: true|false, globs: …, ---');
  return never.length || bare.length
    ? warn(id, `rule(s) applied only when named by hand: ${list([...bare, ...never])}`, 'Give each rule a description, globs, or alwaysApply: true')
    : pass(id, `${p.rules.length} rule(s) have frontmatter Cursor reads`);
}

export function agentsFrontmatterRule(p: PluginFiles): Check {
  const id = 'agents.frontmatter';
  const bad = frontmatterProblems(p.agents, nameAndDescription, 'has no frontmatter (name, description)');
  return bad.length
    ? warn(id, list(bad), 'Start each agent with ---, name: <kebab-case>, description: <when to use it>, ---')
    : pass(id, `${p.agents.length} agent(s) have name and description`);
}

export const LOGO_LIMITS = { minPx: 64, maxPx: 1024, maxBytes: 512 * 1024 } as const;

export function logoRule(p: PluginFiles): Check {
  const id = 'logo';
  const logo = p.logo;
  if (!logo) return warn(id, 'plugin.json names no logo', 'Add "logo": "assets/logo.png" (a square PNG of 128-512 px, or an SVG)');
  if (logo.remote) return pass(id, `logo is a URL (${logo.path.slice(0, 60)})`);
  if (!logo.bytes) return fail(id, `logo ${logo.path} is missing or not a regular file`, 'Ship the image the manifest names');
  const bytes = logo.bytes.length;
  const tooBig = bytes > LOGO_LIMITS.maxBytes ? `${bytes} bytes (over ${LOGO_LIMITS.maxBytes / 1024} KB)` : null;
  const png = pngSize(logo.bytes);
  if (png) {
    const { width, height } = png;
    const off = [width !== height ? 'not square' : null, width < LOGO_LIMITS.minPx || width > LOGO_LIMITS.maxPx ? `outside ${LOGO_LIMITS.minPx}-${LOGO_LIMITS.maxPx} px` : null, tooBig].filter(Boolean);
    return off.length
      ? warn(id, `logo is a ${width}x${height} PNG: ${off.join(', ')}`, `Use a square PNG of ${LOGO_LIMITS.minPx}-${LOGO_LIMITS.maxPx} px under ${LOGO_LIMITS.maxBytes / 1024} KB`)
      : pass(id, `logo is a ${width}x${height} PNG (${bytes} bytes)`);
  }
  if (!/\.svg$/i.test(logo.path) && !/^\s*(<\?xml|<svg|<!--)/.test(logo.bytes.subarray(0, 256).toString('utf8'))) {
    return fail(id, `logo ${logo.path} is neither a PNG nor an SVG`, 'Use a square PNG or an SVG');
  }
  const svg = svgInfo(logo.bytes.toString('utf8'));
  if (svg.kind !== 'ok') return fail(id, `logo ${logo.path} is not well-formed SVG: ${svg.reason}`, 'Fix the SVG (it must parse as XML with an <svg> root)');
  // Without a viewBox the SVG still renders, at its own size: advice, not a fault.
  if (!svg.viewBox) return warn(id, `logo ${logo.path} has no usable viewBox, so it may not scale`, 'Add viewBox="0 0 <w> <h>" to the <svg> element so it scales');
  const off = [svg.viewBox.width !== svg.viewBox.height ? `viewBox ${svg.viewBox.width}x${svg.viewBox.height} is not square` : null, tooBig,
    svg.gradients ? 'it uses gradients, which can render blank in Cursor' : null].filter(Boolean);
  return off.length
    ? warn(id, `logo ${logo.path}: ${off.join(', ')}`, 'Use a square SVG without gradients, or a square PNG')
    : pass(id, `logo is an SVG with a square ${svg.viewBox.width}x${svg.viewBox.height} viewBox (${bytes} bytes)`);
}
