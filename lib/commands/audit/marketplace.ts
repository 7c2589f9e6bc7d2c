/**
 * A marketplace repository: `.cursor-plugin/marketplace.json` lists plugins, each `{name, source, description?,
 * minClientVersions?}` with `source` a folder of the repository holding a plugin whose plugin.json name is the entry's
 * name. The file is judged as Cursor's marketplace schema reads it (FAIL for what it rejects, WARN for a missing
 * `owner`, which the docs show), then each plugin is audited and its rows carry its name (`<name>/<rule>`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { countChecks, fail, pass, type Check, type ReportCounts } from '../../platform/report.js';
import { isObject } from '../../platform/text/isObject.js';
import { minClientVersionsProblem, NAME_PATTERN } from './formats/manifestSchema.js';
import { MANIFEST_FILE, readJsonDoc, relPath } from './readPlugin.js';
import { docProblem, list, verdict, type Findings, type Profile } from './rule.js';

export const MARKETPLACE_FILE = '.cursor-plugin/marketplace.json';
const TOP_KEYS = ['name', 'owner', 'metadata', 'plugins'];
const ENTRY_KEYS = ['name', 'source', 'description', 'minClientVersions'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type MarketplacePlugin = { name: string; source: string; profile: Profile; ok: boolean; counts: ReportCounts };
type Entry = { name: string; source: string };

export const isMarketplace = (dir: string) => existsSync(join(dir, MARKETPLACE_FILE));

const keysOutside = (v: Record<string, unknown>, allowed: string[]) => Object.keys(v).filter((k) => !allowed.includes(k)).map((k) => `"${k}"`).join(', ');

function ownerProblem(owner: unknown): string | null {
  if (!isObject(owner) || typeof owner.name !== 'string' || !owner.name) return '"owner" must be {"name": "…", "email": "…"}';
  const extra = keysOutside(owner, ['name', 'email']);
  if (extra) return `"owner" may hold only "name" and "email", not ${extra}`;
  return owner.email !== undefined && (typeof owner.email !== 'string' || !EMAIL.test(owner.email)) ? '"owner.email" must be an email address' : null;
}

/** What Cursor's marketplace schema rejects (and the advice), and the entries well-formed enough to follow. Pure. */
export function marketplaceFindings(doc: unknown): Findings & { entries: Entry[] } {
  const rejects: string[] = [];
  const advice: string[] = [];
  const entries: Entry[] = [];
  if (!isObject(doc)) return { rejects: ['marketplace.json is not a JSON object'], advice, entries };
  const extra = keysOutside(doc, TOP_KEYS);
  if (extra) rejects.push(`marketplace.json has ${extra}: only name, owner, metadata and plugins are allowed`);
  if (typeof doc.name !== 'string' || !doc.name) rejects.push('"name" must be a non-empty string');
  if (doc.owner === undefined) advice.push('there is no "owner" ({"name": "…"})');
  else if (ownerProblem(doc.owner)) rejects.push(ownerProblem(doc.owner)!);
  if (doc.metadata !== undefined && !isObject(doc.metadata)) rejects.push('"metadata" must be an object');
  if (!Array.isArray(doc.plugins)) return { rejects: [...rejects, '"plugins" must be an array'], advice, entries };
  const seen = new Set<string>();
  doc.plugins.forEach((e, i) => {
    const at = `plugins[${i}]`;
    if (!isObject(e)) { rejects.push(`${at} is not an object`); return; }
    const extraKeys = keysOutside(e, ENTRY_KEYS);
    if (extraKeys) rejects.push(`${at} has ${extraKeys}: only name, source, description and minClientVersions are allowed`);
    if (e.description !== undefined && typeof e.description !== 'string') rejects.push(`${at} "description" must be a string`);
    const versions = e.minClientVersions === undefined ? null : minClientVersionsProblem(e.minClientVersions);
    if (versions) rejects.push(`${at} "minClientVersions" ${versions}`);
    if (typeof e.name !== 'string' || !NAME_PATTERN.test(e.name)) { rejects.push(`${at} "name" must be a kebab-case string`); return; }
    if (seen.has(e.name)) rejects.push(`${at} "name" "${e.name}" is listed twice`);
    seen.add(e.name);
    if (typeof e.source !== 'string' || !e.source.trim()) { rejects.push(`${at} "source" must be a folder path`); return; }
    entries.push({ name: e.name, source: e.source });
  });
  return { rejects, advice, entries };
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
  const { rejects, advice, entries } = broken ? { rejects: [broken], advice: [], entries: [] } : marketplaceFindings(doc.value);
  const checks: Check[] = [verdict('marketplace.json', { rejects, advice }, {
    pass: `${entries.length} plugin(s) listed`,
    fix: 'List plugins as {"name", "source", "description"} under {"name", "owner", "metadata", "plugins"}',
    adviceFix: 'Name the marketplace\'s owner: "owner": {"name": "…", "email": "…"}',
    max: 6,
  })];
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
