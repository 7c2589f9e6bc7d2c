/**
 * The manual is checked against the scripts: every flag a script's --help names is in the commands reference and
 * every flag documented there exists; every diagnose-local check id is explained in troubleshooting; every relative
 * link and anchor in the README and docs/ resolves.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { baseChildEnv } from '../helpers/platform.js';

const read = (p: string) => readFileSync(join(REPO_ROOT, p), 'utf8');
const COMMANDS = read('docs/commands.md');
const FLAG = /--[a-z][a-z-]*|(?<![\w-])-h\b/g;

function help(script: string): string {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, script), '--help'], { encoding: 'utf8', env: baseChildEnv() });
  expect(r.status, `${script} --help`).toBe(0);
  return r.stdout;
}

/** The flags an Options block lists in its first column (`  --flag VALUE  text`, `  -h, --help  text`). */
function listedFlags(text: string): Set<string> {
  const options = text.slice(text.indexOf('\nOptions:'));
  const flags = new Set<string>();
  for (const line of options.split('\n').slice(2)) {
    if (!/^ {2}\S/.test(line)) {
      if (line.trim() === '' || /^\S/.test(line)) break;
      continue;
    }
    const first = line.trim().split(/ {2,}/)[0]!;
    for (const m of first.matchAll(FLAG)) flags.add(m[0]);
  }
  return flags;
}

/** The flags in the first cells of the tables of a section of commands.md (or, for the hooks' table, of a script's rows). */
function documentedFlags(heading: string, script?: string): Set<string> {
  const start = COMMANDS.indexOf(`\n## ${heading}\n`);
  expect(start, `a section "## ${heading}" in docs/commands.md`).toBeGreaterThan(-1);
  const end = COMMANDS.indexOf('\n## ', start + 1);
  const section = COMMANDS.slice(start, end < 0 ? undefined : end);
  const flags = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('|---'))) {
    const cells = row.split('|').map((c) => c.trim());
    if (script && cells[1] !== `\`${script}\``) continue;
    for (const m of (script ? cells[2]! : cells[1]!).matchAll(FLAG)) flags.add(m[0]);
  }
  return flags;
}

const SCRIPTS: Array<[string, string, string?]> = [
  ['hooks/scripts/device-code.mjs', '`hooks/scripts/device-code.mjs`'],
  ['scripts/config.mjs', '`scripts/config.mjs`'],
  ['scripts/diagnose-local.mjs', '`scripts/diagnose-local.mjs`'],
  ['scripts/activity.mjs', '`scripts/activity.mjs`'],
  ['scripts/verify-mcp-surface-e2e.mjs', '`scripts/verify-mcp-surface-e2e.mjs`'],
  ['scripts/audit-cursor-plugin.mjs', '`scripts/audit-cursor-plugin.mjs`'],
  ['scripts/refresh-cursor-runtime.mjs', '`scripts/refresh-cursor-runtime.mjs`'],
  ['scripts/managed.mjs', '`scripts/managed.mjs`'],
  ['hooks/scripts/session-start.cjs', 'The hooks', 'hooks/scripts/session-start.cjs'],
  ['hooks/scripts/pre-mcp-cap-check.cjs', 'The hooks', 'hooks/scripts/pre-mcp-cap-check.cjs'],
  ['hooks/scripts/after-mcp-journal.cjs', 'The hooks', 'hooks/scripts/after-mcp-journal.cjs'],
];

describe('docs/commands.md against each script\'s --help', () => {
  it('names every script the plugin ships', () => {
    const shipped = [...readdirSync(join(REPO_ROOT, 'scripts')).map((f) => `scripts/${f}`), 'hooks/scripts/device-code.mjs'];
    for (const script of shipped) expect(SCRIPTS.map(([s]) => s), script).toContain(script);
  });
  for (const [script, heading, row] of SCRIPTS) {
    it(`${script}: every flag its --help lists is documented, and every documented flag exists`, () => {
      const text = help(script);
      const listed = listedFlags(text);
      const everywhere = new Set(text.match(FLAG) ?? []);
      const documented = documentedFlags(heading, row);
      expect(listed.size).toBeGreaterThan(0);
      for (const flag of new Set([...listed, ...everywhere])) expect([...documented], `${flag} of ${script} in docs/commands.md`).toContain(flag);
      for (const flag of documented) expect([...everywhere], `${flag}, documented for ${script}, in its --help`).toContain(flag);
    });
  }
});

describe('docs/troubleshooting.md against diagnose-local', () => {
  it('explains every check id diagnose-local can print', () => {
    const tmp = tempDir('agentstack-docs-');
    try {
      const env = { ...baseChildEnv(), HOME: tmp.path, AGENTSTACK_CURSOR_DIR: tmp.path, AGENTSTACK_BASE_URL: 'http://127.0.0.1:9' };
      const run = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { encoding: 'utf8', env });
      const local = (JSON.parse(run.stdout) as { checks: Array<{ id: string }> }).checks.map((c) => c.id);
      expect(local.length).toBeGreaterThan(15);
      // The --online rows: the probe's and the online step's ids, as their sources name them.
      const sources = [...readdirSync(join(REPO_ROOT, 'lib/agentstack/probe')).map((f) => `lib/agentstack/probe/${f}`), 'lib/commands/diagnose/online.ts'];
      const online = sources.flatMap((f) => [...read(f).matchAll(/'((?:mcp|online)\.[a-z_-]+)'/g)].map((m) => m[1]!));
      expect(online).toContain('online.auth-me');
      const text = read('docs/troubleshooting.md');
      for (const id of new Set([...local, ...online])) expect(text, `check ${id}`).toContain(`\`${id}\``);
    } finally {
      tmp.cleanup();
    }
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) out.add(slug(line.replace(/^#+ /, '')));
  }
  return out;
}

function linksOf(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('links in the README and docs/', () => {
  const pages = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const links = linksOf(read(page)).filter((l) => !/^[a-z]+:/i.test(l));
      for (const link of links) {
        const [path, anchor] = link.split('#');
        const target = path ? relative(REPO_ROOT, join(REPO_ROOT, dirname(page), path)) : page;
        expect(existsSync(join(REPO_ROOT, target)), `${page} links to ${link}`).toBe(true);
        if (anchor) expect([...anchorsOf(read(target))], `${page} links to ${link}`).toContain(anchor);
      }
    });
  }

  it('the README stays short: at most 150 lines, with the two quick-start commands', () => {
    const readme = read('README.md');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(150);
    expect(readme).toContain('npm ci && npm run demo\nnpm test\n');
  });
});
