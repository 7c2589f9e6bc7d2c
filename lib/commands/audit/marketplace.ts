/**
 * A marketplace repository: `.cursor-plugin/marketplace.json` lists plugins, each `{name, source, description}`
 * with `source` a folder of the repository holding a plugin whose plugin.json name is the entry's name. The file is
 * judged on its own, then each plugin is audited and its rows carry its name (`<name>/<rule>`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { countChecks, fail, pass, type Check, type ReportCounts } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import { NAME_PATTERN } from './formats/manifestSchema.js';
import { MANIFEST_FILE, readJsonDoc, relPath } from './readPlugin.js';
import { docProblem, list } from './rule.js';
import type { Profile } from './rule.js';

export const MARKETPLACE_FILE = '.cursor-plugin/marketplace.json';
const ENTRY_KEYS = ['name', 'source', 'description'];

export type MarketplacePlugin = { name: string; source: string; profile: Profile; ok: boolean; counts: ReportCounts };
type Entry = { name: string; source: string };

export const isMarketplace = (dir: string) => existsSync(join(dir, MARKETPLACE_FILE));

/** Shape problems of marketplace.json, and the entries well-formed enough to follow. Pure. */
export function marketplaceProblems(doc: unknown): { problems: string[]; entries: Entry[] } {
  const problems: string[] = [];
  const entries: Entry[] = [];
  if (!isObject(doc)) return { problems: ['marketplace.json is not a JSON object'], entries };
  if (typeof doc.name !== 'string' || !NAME_PATTERN.test(doc.name)) problems.push('"name" must be a kebab-case string');
  if (!isObject(doc.owner) || typeof doc.owner.name !== 'string' || !doc.owner.name) problems.push('"owner" must be {"name": "…"}');
  if (doc.metadata !== undefined && !isObject(doc.metadata)) problems.push('"metadata" must be an object');
  if (!Array.isArray(doc.plugins)) return { problems: [...problems, '"plugins" must be an array'], entries };
  const seen = new Set<string>();
  doc.plugins.forEach((e, i) => {
    const at = `plugins[${i}]`;
    if (!isObject(e)) { problems.push(`${at} is not an object`); return; }
    const extra = Object.keys(e).filter((k) => !ENTRY_KEYS.includes(k));
    if (extra.length) problems.push(`${at} has ${extra.map((k) => `"${k}"`).join(', ')}: only name, source and description are allowed`);
    if (e.description !== undefined && typeof e.description !== 'string') problems.push(`${at} "description" must be a string`);
    if (typeof e.name !== 'string' || !NAME_PATTERN.test(e.name)) { problems.push(`${at} "name" must be a kebab-case string`); return; }
    if (seen.has(e.name)) problems.push(`${at} "name" "${e.name}" is listed twice`);
    seen.add(e.name);
    if (typeof e.source !== 'string' || !e.source.trim()) { problems.push(`${at} "source" must be a folder path`); return; }
    entries.push({ name: e.name, source: e.source });
  });
  return { problems, entries };
}

/** Where an entry's plugin lives, or why it cannot be followed. */
function sourceDir(root: string, entry: Entry): { dir: string } | { problem: string } {
  const rel = relPath(entry.source);
  if (entry.source.startsWith('/') || /^[a-z]+:/i.test(entry.source) || rel.split('/').includes('..')) return { problem: `"${entry.name}" source "${entry.source}" must be a folder inside the repository` };
  const dir = join(root, rel || '.');
  if (!existsSync(dir)) return { problem: `"${entry.name}" source "${entry.source}" does not exist` };
  if (!existsSync(join(dir, MANIFEST_FILE))) return { problem: `"${entry.name}" source "${entry.source}" holds no ${MANIFEST_FILE}` };
  return { dir };
}

export function auditMarketplace(root: string, auditOne: (dir: string) => { profile: Profile; checks: Check[] }): { checks: Check[]; plugins: MarketplacePlugin[] } {
  const doc = readJsonDoc(root, MARKETPLACE_FILE);
  const broken = docProblem(doc);
  const { problems, entries } = broken ? { problems: [broken], entries: [] } : marketplaceProblems(doc.value);
  const checks: Check[] = [problems.length
    ? fail('marketplace.json', list(problems, 6), 'List plugins as {"name", "source", "description"} under {"name", "owner", "metadata", "plugins"}', { problems })
    : pass('marketplace.json', `${entries.length} plugin(s) listed`)];
  const sourceProblems: string[] = [];
  const plugins: MarketplacePlugin[] = [];
  const pluginChecks: Check[] = [];
  for (const entry of entries) {
    const found = sourceDir(root, entry);
    if ('problem' in found) { sourceProblems.push(found.problem); continue; }
    const manifest = readJsonDoc(found.dir, MANIFEST_FILE);
    const name = isObject(manifest.value) ? manifest.value.name : undefined;
    if (typeof name === 'string' && name !== entry.name) sourceProblems.push(`"${entry.name}" is named "${name}" in its plugin.json`);
    const audit = auditOne(found.dir);
    const counts = countChecks(audit.checks);
    plugins.push({ name: entry.name, source: entry.source, profile: audit.profile, ok: counts.FAIL === 0, counts });
    pluginChecks.push(...audit.checks.map((c) => ({ ...c, id: `${entry.name}/${c.id}` })));
  }
  checks.push(sourceProblems.length
    ? fail('marketplace.sources', list(sourceProblems), 'Point each "source" at the plugin\'s folder and use its plugin.json name')
    : pass('marketplace.sources', `${plugins.length} source folder(s) hold the plugin their entry names`));
  return { checks: [...checks, ...pluginChecks], plugins };
}
