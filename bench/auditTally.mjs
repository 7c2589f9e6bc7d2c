#!/usr/bin/env node
/**
 * Runs the committed audit bundle over a marketplace repository (Cursor's official plugins, say), as a whole and
 * plugin by plugin, and prints the counts as Markdown: plugins audited, PASS / WARN / FAIL, and per rule.
 * Usage: node bench/auditTally.mjs <marketplace folder>   (nothing is written; exit 1 when any FAIL)
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../scripts/audit-cursor-plugin.mjs', import.meta.url));
const root = process.argv[2] ? resolve(process.argv[2]) : null;
if (!root) {
  process.stderr.write('usage: node bench/auditTally.mjs <marketplace folder>\n');
  process.exit(2);
}

function audit(dir) {
  const r = spawnSync(process.execPath, [SCRIPT, dir, '--json'], { encoding: 'utf8', timeout: 120_000 });
  if (r.status === 2 || !r.stdout) throw new Error(`audit of ${dir} ended with ${r.status}: ${r.stderr.trim()}`);
  return { ...JSON.parse(r.stdout), exit: r.status };
}

const whole = audit(root);
if (whole.kind !== 'marketplace') throw new Error(`${root} holds no .cursor-plugin/marketplace.json`);
const alone = whole.plugins.map((p) => ({ ...p, report: audit(join(root, p.source)) }));
const perRule = new Map();
for (const { report } of alone) {
  for (const c of report.checks) {
    const row = perRule.get(c.id) ?? { PASS: 0, WARN: 0, FAIL: 0 };
    row[c.status] += 1;
    perRule.set(c.id, row);
  }
}
const disagree = alone.filter((p) => p.report.counts.FAIL !== p.counts.FAIL || p.report.counts.WARN !== p.counts.WARN).map((p) => p.name);
const lines = [
  `- Marketplace as a whole: exit ${whole.exit}, ${whole.plugins.length} plugins, ${whole.counts.PASS} PASS, ${whole.counts.WARN} WARN, ${whole.counts.FAIL} FAIL`,
  `- Each plugin alone: ${alone.filter((p) => p.report.exit === 0).length} of ${alone.length} exit 0, ${alone.reduce((n, p) => n + p.report.counts.FAIL, 0)} FAIL in all${disagree.length ? `; differs from the whole: ${disagree.join(', ')}` : ''}`,
  '',
  '| rule | plugins it applies to | PASS | WARN | FAIL |',
  '|---|---:|---:|---:|---:|',
  ...[...perRule].map(([id, r]) => `| \`${id}\` | ${r.PASS + r.WARN + r.FAIL} | ${r.PASS} | ${r.WARN} | ${r.FAIL} |`),
  '',
  '| plugin | PASS | WARN | FAIL | WARN rows |',
  '|---|---:|---:|---:|---|',
  ...alone.map((p) => `| ${p.name} | ${p.report.counts.PASS} | ${p.report.counts.WARN} | ${p.report.counts.FAIL} | ${p.report.checks.filter((c) => c.status !== 'PASS').map((c) => `\`${c.id}\``).join(', ')} |`),
];
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = whole.exit === 0 && alone.every((p) => p.report.exit === 0) ? 0 : 1;
