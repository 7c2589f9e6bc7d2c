/**
 * Writes bench/mutation.md from Stryker's JSON reports (bench/.mutation/reports/*.json): one row per module of
 * modules.mjs in two tables (the pure modules, with the score of the whole set; the modules with I/O and protocol
 * logic, each judged on its own), the surviving mutants listed in equivalent.json as equivalent (with the reason),
 * and every other survivor (to be killed by a test or explained). A module with no report keeps its row from the
 * previous bench/mutation.md. Exit 1 when there is no report at all.
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
const GOAL = { overall: 85, module: 75, io: 80 };

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

// Reports are not committed (bench/.mutation/ is git-ignored), so a module run on its own must not wipe the rows of
// the others: a module without a report here keeps its row, its equivalent mutants and its survivors from the
// bench/mutation.md it replaces, marked as from an earlier run.
const previous = existsSync(OUT) ? readFileSync(OUT, 'utf8').split('\n') : [];
const carried = { equivalent: [], unexplained: [] };
for (const row of rows.values()) {
  if (row.files.size) continue;
  const line = previous.find((l) => l.startsWith(`| ${row.module.name} | \``));
  if (!line) continue;
  const cells = line.split(' | ');
  const files = [...cells[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const [, killed, timeout, survived, noCoverage, equivalent] = cells.slice(2, 8).map(Number);
  Object.assign(row, { killed, timeout, survived, noCoverage, equivalent, earlier: true });
  for (const f of files) row.files.add(f);
  const mine = (l) => files.some((f) => l.startsWith(`| \`${f}:`));
  const section = (title) => {
    const at = previous.findIndex((l) => l.startsWith(title));
    if (at < 0) return [];
    const out = [];
    for (let i = at + 1; i < previous.length && !previous[i].startsWith('## '); i++) if (mine(previous[i])) out.push(previous[i]);
    return out;
  };
  carried.equivalent.push(...section('## Equivalent mutants'));
  carried.unexplained.push(...section('## Surviving mutants not explained'));
}

const pct = (n, d) => (d === 0 ? 100 : (100 * n) / d);
const fmt = (v) => `${v.toFixed(1)}%`;
const total = (r) => r.killed + r.timeout + r.survived + r.noCoverage + r.equivalent;
const scoreOf = (r) => pct(r.killed + r.timeout, total(r));
const withoutEquivalentsOf = (r) => pct(r.killed + r.timeout, r.killed + r.timeout + r.survived + r.noCoverage);
const unexplainedCount = unexplained.length + carried.unexplained.length;

/** One table and its goal: the pure modules (overall and per-module goals), or the I/O ones (a per-module goal). */
function group(title, modules, goal) {
  const groupRows = modules.map((m) => rows.get(m.name));
  const measured = groupRows.filter((r) => r.files.size);
  const sum = (key) => measured.reduce((a, r) => a + r[key], 0);
  const all = { killed: sum('killed'), timeout: sum('timeout'), survived: sum('survived'), noCoverage: sum('noCoverage'), equivalent: sum('equivalent') };
  const missing = groupRows.filter((r) => !r.files.size).map((r) => r.module.name);
  const lowest = measured.length ? Math.min(...measured.map(scoreOf)) : 0;
  const files = new Set(measured.flatMap((r) => [...r.files]));
  const inGroup = (where) => files.has(where.replace(/:\d+$/, ''));
  const open = carried.unexplained.filter((l) => inGroup(l.split('`')[1] ?? '')).length + unexplained.filter((u) => inGroup(u.where)).length;
  const met = !missing.length && scoreOf(all) >= (goal.overall ?? 0) && lowest >= goal.module && open === 0;
  const lines = [
    `## ${title}`,
    '',
    '| Module | Files | Mutants | Killed | Timed out | Survived | No coverage | Equivalent | Score | Without equivalents |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...groupRows.map((r) => r.files.size
      ? `| ${r.module.name} | ${[...r.files].map((f) => `\`${f}\``).join(', ')} | ${total(r)} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.equivalent} | ${fmt(scoreOf(r))} | ${fmt(withoutEquivalentsOf(r))} |`
      : `| ${r.module.name} | (not measured yet) | | | | | | | | |`),
    `| **all** | | ${total(all)} | ${all.killed} | ${all.timeout} | ${all.survived} | ${all.noCoverage} | ${all.equivalent} | **${fmt(scoreOf(all))}** | ${fmt(withoutEquivalentsOf(all))} |`,
    '',
    `Mutation score: ${fmt(scoreOf(all))}; without the ${all.equivalent} listed equivalent mutants: ${fmt(withoutEquivalentsOf(all))}.`,
    '',
    `Goal (${goal.overall ? `at least ${goal.overall}% overall, ` : ''}no module under ${goal.module}%, every module measured, every surviving mutant killed or explained): ${met ? 'met' : 'NOT met'}${missing.length ? ` (not measured: ${missing.join(', ')})` : ''}.`,
    '',
  ];
  return { lines, met, earlier: groupRows.filter((r) => r.earlier).map((r) => r.module.name) };
}
const pure = group('Pure modules', MODULES.filter((m) => !m.io), { overall: GOAL.overall, module: GOAL.module });
const io = group('Modules with I/O and protocol logic', MODULES.filter((m) => m.io), { module: GOAL.io });
const earlier = [...pure.earlier, ...io.earlier];

const lines = [
  '# Mutation testing',
  '',
  `Generated by \`npm run mutation\` (StrykerJS${frameworkVersion ? ` ${frameworkVersion}` : ''}, vitest runner) from the JSON reports in \`bench/.mutation/reports/\`.`,
  'Modules and the tests each may run (unit tests for the pure modules; unit and in-process integration tests against real servers for the I/O ones): `bench/mutation/modules.mjs`. Known equivalent mutants: `bench/mutation/equivalent.json`.',
  'Score: (killed + timed out) / all mutants tested, equivalent ones counted as survivors (Stryker\'s mutation score); the last column leaves the listed equivalent mutants out.',
  ...(earlier.length ? ['', `Rows kept from an earlier run (no report for them in this one): ${earlier.join(', ')}.`] : []),
  '',
  ...pure.lines,
  ...io.lines,
  `## Equivalent mutants (${equivalentHits.length + carried.equivalent.length})`,
  '',
  ...(equivalentHits.length + carried.equivalent.length
    ? ['| Where | Mutator | Original | Mutant | Why no test can kill it |', '|---|---|---|---|---|',
      ...carried.equivalent,
      ...equivalentHits.map((h) => `| \`${h.where}\` | ${h.mutant.mutatorName} | ${cell(h.original)} | ${cell(h.mutant.replacement ?? '')} | ${h.reason} |`)]
    : ['None.']),
  '',
  `## Surviving mutants not explained (${unexplainedCount})`,
  '',
  ...(unexplainedCount
    ? ['Each needs a test that kills it, or an entry in `bench/mutation/equivalent.json` with the reason.', '',
      '| Where | Status | Mutator | Original | Mutant |', '|---|---|---|---|---|',
      ...carried.unexplained,
      ...unexplained.map((u) => `| \`${u.where}\` | ${u.mutant.status} | ${u.mutant.mutatorName} | ${cell(u.original)} | ${cell(u.mutant.replacement ?? '')} |`)]
    : ['None.']),
  '',
];
writeFileSync(OUT, lines.join('\n'));
console.log(`${relative(ROOT, OUT)}: pure modules ${pure.met ? 'goal met' : 'goal NOT met'}; I/O modules ${io.met ? 'goal met' : 'goal NOT met'}; ${unexplainedCount} survivor(s) unexplained`);
