/**
 * Writes bench/mutation.md from Stryker's JSON reports (bench/.mutation/reports/*.json): one row per module of
 * modules.mjs, the score of the whole set, the surviving mutants listed in equivalent.json as equivalent (with the
 * reason), and every other survivor (to be killed by a test or explained). Exit 1 when the report is missing.
 *
 * Score: Stryker's own, (killed + timed out) / (killed + timed out + survived + no coverage), listed equivalent
 * mutants counted as survivors; the goal is judged on it. Beside it, the score with the listed equivalents left out.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODULES, moduleOfFile } from './modules.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '../..');
const REPORTS = join(ROOT, 'bench/.mutation/reports');
const OUT = join(ROOT, 'bench/mutation.md');
const GOAL = { overall: 85, module: 75 };

const reportFiles = existsSync(REPORTS) ? readdirSync(REPORTS).filter((f) => f.endsWith('.json')).map((f) => join(REPORTS, f)) : [];
if (!reportFiles.length) {
  console.error(`mutation report: no Stryker JSON report in ${relative(ROOT, REPORTS)}; run npm run mutation`);
  process.exit(1);
}
// One result per source file: the newest report that has it (a module run again replaces its old figures).
const files = new Map();
let frameworkVersion = '';
for (const path of reportFiles.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  frameworkVersion = report.framework?.version ?? frameworkVersion;
  for (const [file, result] of Object.entries(report.files)) files.set(file.replaceAll('\\', '/'), result);
}
/**
 * Known equivalent mutants: file, mutator, the original and mutated text, and (`in`, optional) text the mutated
 * line must contain, for an original that occurs on several lines of which only one is equivalent.
 * @type {Array<{ file: string; mutator: string; original: string; replacement: string; in?: string; reason: string }>}
 */
const equivalents = JSON.parse(readFileSync(join(ROOT, 'bench/mutation/equivalent.json'), 'utf8'));

/** The source text a mutant replaced. */
function originalText(source, location) {
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  const parts = [lines[start.line - 1].slice(start.column - 1), ...lines.slice(start.line, end.line - 1), lines[end.line - 1].slice(0, end.column - 1)];
  return parts.join('\n');
}
const squash = (text) => text.replace(/\s+/g, ' ').trim();
const short = (text, max = 70) => { const s = squash(text); return s.length > max ? `${s.slice(0, max - 1)}…` : s; };
const cell = (text) => `\`${short(text).replaceAll('|', '\\|').replaceAll('`', "'")}\``;

const rows = new Map(MODULES.map((m) => [m.name, { module: m, files: new Set(), killed: 0, timeout: 0, survived: 0, noCoverage: 0, equivalent: 0, other: 0 }]));
const equivalentHits = [];
const unexplained = [];
for (const [file, result] of files) {
  const path = relative(ROOT, join(ROOT, file)).replaceAll('\\', '/');
  const module = moduleOfFile(path, ROOT);
  if (!module) continue;
  const row = rows.get(module.name);
  row.files.add(path);
  for (const mutant of result.mutants) {
    const original = originalText(result.source, mutant.location);
    const where = `${path}:${mutant.location.start.line}`;
    switch (mutant.status) {
      case 'Killed': row.killed++; break;
      case 'Timeout': row.timeout++; break;
      case 'Survived':
      case 'NoCoverage': {
        const line = result.source.split('\n')[mutant.location.start.line - 1] ?? '';
        const known = equivalents.find((e) => e.file === path && e.mutator === mutant.mutatorName && squash(e.original) === squash(original) && squash(e.replacement) === squash(mutant.replacement ?? '') && (!e.in || line.includes(e.in)));
        if (known) {
          row.equivalent++;
          equivalentHits.push({ where, mutant, original, reason: known.reason });
        } else {
          if (mutant.status === 'Survived') row.survived++; else row.noCoverage++;
          unexplained.push({ where, mutant, original });
        }
        break;
      }
      default: row.other++; // CompileError, RuntimeError, Ignored: not part of the score
    }
  }
}

const pct = (n, d) => (d === 0 ? 100 : (100 * n) / d);
const fmt = (v) => `${v.toFixed(1)}%`;
const scoreOf = (r) => pct(r.killed + r.timeout, r.killed + r.timeout + r.survived + r.noCoverage + r.equivalent);
const withoutEquivalentsOf = (r) => pct(r.killed + r.timeout, r.killed + r.timeout + r.survived + r.noCoverage);
const measured = [...rows.values()].filter((r) => r.files.size);
const sum = (key) => measured.reduce((a, r) => a + r[key], 0);
const all = { killed: sum('killed'), timeout: sum('timeout'), survived: sum('survived'), noCoverage: sum('noCoverage'), equivalent: sum('equivalent') };
const overall = scoreOf(all);
const missing = [...rows.values()].filter((r) => !r.files.size).map((r) => r.module.name);
const lowest = measured.length ? Math.min(...measured.map(scoreOf)) : 0;


const met = !missing.length && overall >= GOAL.overall && lowest >= GOAL.module && unexplained.length === 0;

const lines = [
  '# Mutation testing',
  '',
  `Generated by \`npm run mutation\` (StrykerJS${frameworkVersion ? ` ${frameworkVersion}` : ''}, vitest runner, unit tests only) from the JSON reports in \`bench/.mutation/reports/\`.`,
  'Modules and the unit tests each may run: `bench/mutation/modules.mjs`. Known equivalent mutants: `bench/mutation/equivalent.json`.',
  'Score: (killed + timed out) / all mutants tested, equivalent ones counted as survivors (Stryker\'s mutation score); the last column leaves the listed equivalent mutants out.',
  '',
  '| Module | Files | Mutants | Killed | Timed out | Survived | No coverage | Equivalent | Score | Without equivalents |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...[...rows.values()].map((r) => r.files.size
    ? `| ${r.module.name} | ${[...r.files].map((f) => `\`${f}\``).join(', ')} | ${r.killed + r.timeout + r.survived + r.noCoverage + r.equivalent} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.equivalent} | ${fmt(scoreOf(r))} | ${fmt(withoutEquivalentsOf(r))} |`
    : `| ${r.module.name} | (not in this run) | | | | | | | | |`),
  `| **all** | | ${all.killed + all.timeout + all.survived + all.noCoverage + all.equivalent} | ${all.killed} | ${all.timeout} | ${all.survived} | ${all.noCoverage} | ${all.equivalent} | **${fmt(overall)}** | ${fmt(withoutEquivalentsOf(all))} |`,
  '',
  `Mutation score: ${fmt(overall)}`,
  '',
  `Without the ${all.equivalent} listed equivalent mutants: ${fmt(withoutEquivalentsOf(all))}.`,
  '',
  `Goal (at least ${GOAL.overall}% overall, no module under ${GOAL.module}%, every module measured, every surviving mutant killed or explained): ${met ? 'met' : 'NOT met'}${missing.length ? ` (not measured: ${missing.join(', ')})` : ''}.`,
  '',
  `## Equivalent mutants (${equivalentHits.length})`,
  '',
  ...(equivalentHits.length
    ? ['| Where | Mutator | Original | Mutant | Why no test can kill it |', '|---|---|---|---|---|',
      ...equivalentHits.map((h) => `| \`${h.where}\` | ${h.mutant.mutatorName} | ${cell(h.original)} | ${cell(h.mutant.replacement ?? '')} | ${h.reason} |`)]
    : ['None.']),
  '',
  `## Surviving mutants not explained (${unexplained.length})`,
  '',
  ...(unexplained.length
    ? ['Each needs a test that kills it, or an entry in `bench/mutation/equivalent.json` with the reason.', '',
      '| Where | Status | Mutator | Original | Mutant |', '|---|---|---|---|---|',
      ...unexplained.map((u) => `| \`${u.where}\` | ${u.mutant.status} | ${u.mutant.mutatorName} | ${cell(u.original)} | ${cell(u.mutant.replacement ?? '')} |`)]
    : ['None.']),
  '',
];
writeFileSync(OUT, lines.join('\n'));
console.log(`${relative(ROOT, OUT)}: Mutation score: ${fmt(overall)} (${met ? 'goal met' : 'goal NOT met'}; ${unexplained.length} survivor(s) unexplained)`);
