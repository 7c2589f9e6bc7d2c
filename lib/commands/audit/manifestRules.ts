/**
 * Generic rules over the manifest: its keys, name and fields as Cursor's schema reads them, the component paths it
 * names, and the version advice. Pure: each takes the files read by readPluginFiles and returns one Check.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import { fieldProblems, nameProblem, unknownKeys } from './formats/manifestSchema.js';
import type { PluginFiles } from './readPlugin.js';
import { docProblem, list, manifestOf, verdict } from './rule.js';

export function manifestKeysRule(p: PluginFiles): Check {
  const id = 'manifest.keys';
  const broken = docProblem(p.manifest);
  if (broken) return fail(id, broken, 'Create .cursor-plugin/plugin.json with at least {"name": "<kebab-case>"}');
  const extra = unknownKeys(manifestOf(p)!);
  return extra.length
    ? fail(id, `plugin.json has ${extra.map((k) => `"${k}"`).join(', ')}, which Cursor's schema rejects`, 'Remove the keys Cursor does not know', { unknown: extra })
    : pass(id, "plugin.json keys are all in Cursor's plugin schema");
}

export function manifestNameRule(p: PluginFiles): Check {
  const id = 'manifest.name';
  const m = manifestOf(p);
  if (!m) return fail(id, 'plugin.json cannot be read', 'Fix plugin.json first');
  const problem = nameProblem(m);
  return problem
    ? fail(id, `plugin.json ${problem}`, 'Use a name like "my-plugin"')
    : pass(id, `plugin name "${String(m!.name)}" matches Cursor's pattern`);
}

export function manifestFieldsRule(p: PluginFiles): Check {
  const id = 'manifest.fields';
  const m = manifestOf(p);
  if (!m) return fail(id, 'plugin.json cannot be read', 'Fix plugin.json first');
  const problems = fieldProblems(m);
  const known = Object.keys(m).filter((k) => k !== 'name').length;
  const words = (advice: boolean) => problems.filter((f) => !!f.advice === advice).map((f) => `plugin.json ${f.message}`);
  return verdict(id, { rejects: words(false), advice: words(true) }, {
    pass: `${known} field(s) besides "name" have the form Cursor's schema expects`,
    fix: "Give each field the form Cursor's schema expects",
    adviceFix: 'Give each field the form Cursor\'s docs show',
    max: 6,
  });
}

/** Every path the manifest names is relative, stays inside the plugin, and exists (globs: their folder). */
export function manifestPathsRule(p: PluginFiles): Check {
  const id = 'manifest.paths';
  const bad = p.componentPaths.filter((c) => !c.exists).map((c) => `"${c.field}": ${JSON.stringify(c.value)}`);
  return bad.length
    ? fail(id, `plugin.json names path(s) that do not exist in the plugin or leave it: ${list(bad)}`, 'Point each field at a file or folder inside the plugin (relative, without "..")', { missing: bad })
    : pass(id, p.componentPaths.length ? `${p.componentPaths.length} path(s) named by plugin.json exist` : 'plugin.json names no component paths (conventional folders are used)');
}

const SEMVER = /^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A CHANGELOG heading for the version: `## 1.0.0`, `## [1.0.0]`, `## v1.0.0 — initial release`, `## 1.0.0 (date)`. */
export function changelogHasVersion(changelog: string, version: string): boolean {
  return new RegExp(`^#{1,3}\\s+\\[?v?${escape(version)}\\]?(?![\\w.-])`, 'm').test(changelog);
}

export function versionsRule(p: PluginFiles): Check {
  const id = 'versions';
  const version = manifestOf(p)?.version;
  if (version === undefined) return warn(id, 'plugin.json has no "version"', 'Set "version" (e.g. "1.0.0") so people can tell releases apart');
  if (typeof version !== 'string' || !SEMVER.test(version)) return warn(id, `plugin.json "version" ${JSON.stringify(version)} is not a semantic version`, 'Use "MAJOR.MINOR.PATCH" (e.g. "1.0.0")');
  const problems: string[] = [];
  const pkgVersion = isObject(p.packageJson.value) ? p.packageJson.value.version : undefined;
  if (p.packageJson.exists && pkgVersion !== undefined && pkgVersion !== version) problems.push(`package.json says ${JSON.stringify(pkgVersion)}`);
  if (p.changelog === null) problems.push('there is no CHANGELOG.md');
  else if (!changelogHasVersion(p.changelog, version)) problems.push(`CHANGELOG.md has no "## ${version}" heading`);
  return problems.length
    ? warn(id, `plugin.json is ${version} but ${list(problems)}`, 'Keep one version everywhere and say what changed in CHANGELOG.md')
    : pass(id, `version ${version} agrees in plugin.json${p.packageJson.exists ? ', package.json' : ''} and CHANGELOG.md`);
}
