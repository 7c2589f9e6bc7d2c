/**
 * The generic layer, on plugins in the shapes Cursor's official plugins use (all of which Cursor's validator
 * accepts): each fixture gets its exact expected result, row by row. Then one mutation per fault Cursor's validator
 * rejects (or that breaks in Cursor), each with the exact rows it changes.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFolder, auditPlugin, type AuditOptions } from '../../lib/commands/audit/auditPlugin.js';
import type { CheckStatus } from '../../lib/platform/report.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import {
  bearerVariables, editJson, fullSvg, hooksRelative, hostedMcp, marketplace, png, skillsOnly, writeFixture, type FixtureFiles,
} from '../helpers/pluginFixtures.js';
import { tempDir } from '../helpers/repo.js';

type Rows = Record<string, CheckStatus>;
let tmp: ReturnType<typeof tempDir>;
let n = 0;
beforeAll(() => { tmp = tempDir('agentstack-audit-generic-'); });
afterAll(() => tmp?.cleanup());

const folder = (files: FixtureFiles) => writeFixture(join(tmp.path, `f${n++}`), files);
const rows = (dir: string, options: AuditOptions = {}): Rows => Object.fromEntries(auditPlugin(dir, options).map((c) => [c.id, c.status]));
const checkOf = (dir: string, id: string) => auditPlugin(dir).find((c) => c.id === id)!;

const MANIFEST_OK: Rows = { 'manifest.keys': 'PASS', 'manifest.name': 'PASS', 'manifest.fields': 'PASS', 'manifest.paths': 'PASS' };
const MCP_OK: Rows = { 'mcp.no-$schema': 'PASS', 'mcp.servers': 'PASS', 'mcp.variables': 'PASS' };

const EXPECTED: Record<string, { files: () => FixtureFiles; rows: Rows }> = {
  'skills only, no CHANGELOG, no logo': {
    files: skillsOnly,
    rows: { ...MANIFEST_OK, versions: 'WARN', 'skills.frontmatter': 'PASS', logo: 'WARN', secrets: 'PASS' },
  },
  'hosted MCP server named "linear", PNG logo, "## 1.0.0 — initial release"': {
    files: hostedMcp,
    rows: { ...MANIFEST_OK, versions: 'PASS', ...MCP_OK, logo: 'PASS', secrets: 'PASS' },
  },
  'Authorization: Bearer ${VAR} with "variables"': {
    files: bearerVariables,
    rows: { ...MANIFEST_OK, versions: 'PASS', ...MCP_OK, logo: 'PASS', secrets: 'PASS' },
  },
  'all 21 manifest keys, SVG logo, every kind of component': {
    files: fullSvg,
    rows: {
      ...MANIFEST_OK, versions: 'PASS', ...MCP_OK,
      'hooks.format': 'PASS', 'hooks.anchored': 'PASS', 'hooks.timeouts': 'PASS', 'hooks.targets': 'PASS',
      'commands.frontmatter': 'PASS', 'skills.frontmatter': 'PASS', 'rules.frontmatter': 'PASS', 'agents.frontmatter': 'PASS',
      logo: 'PASS', 'bundles.self-contained': 'PASS', secrets: 'PASS',
    },
  },
  'hooks only, relative paths, no timeout': {
    files: hooksRelative,
    rows: {
      ...MANIFEST_OK, versions: 'PASS', 'hooks.format': 'PASS', 'hooks.anchored': 'WARN', 'hooks.timeouts': 'WARN', 'hooks.targets': 'PASS',
      logo: 'WARN', 'bundles.self-contained': 'PASS', secrets: 'PASS',
    },
  },
};

describe('plugins in the shapes of official ones', () => {
  it.each(Object.keys(EXPECTED))('%s: exactly the expected rows, generic profile, no FAIL', (name) => {
    const { files, rows: expected } = EXPECTED[name]!;
    const dir = folder(files());
    const report = auditFolder(dir);
    expect(report.kind).toBe('plugin');
    expect(report.profile).toBe('generic');
    expect(Object.fromEntries(report.checks.map((c) => [c.id, c.status]))).toEqual(expected);
  });

  it('reads an SVG logo and a "## 1.0.0 — initial release" heading for what they are', () => {
    expect(checkOf(folder(fullSvg()), 'logo').summary).toMatch(/^logo is an SVG with a square 192x192 viewBox \(\d+ bytes\)$/);
    expect(checkOf(folder(hostedMcp()), 'versions').summary).toMatch(/^version 1\.0\.0 agrees/);
    expect(checkOf(folder(hostedMcp()), 'mcp.servers').summary).toBe('1 MCP server(s): linear');
  });

  it('a marketplace repository with three plugins: the file, its sources, then each plugin, one summary', () => {
    const report = auditFolder(folder(marketplace()));
    if (report.kind !== 'marketplace') throw new Error('not read as a marketplace');
    expect(report.plugins.map((p) => [p.name, p.source, p.profile, p.ok])).toEqual([
      ['pdf-tools', 'pdf-tools', 'generic', true],
      ['linear-lite', 'third_party/linear-lite', 'generic', true],
      ['acme-api', 'third_party/acme-api', 'generic', true],
    ]);
    const prefixed = (prefix: string, r: Rows) => Object.fromEntries(Object.entries(r).map(([k, v]) => [`${prefix}/${k}`, v]));
    expect(Object.fromEntries(report.checks.map((c) => [c.id, c.status]))).toEqual({
      'marketplace.json': 'PASS', 'marketplace.sources': 'PASS',
      ...prefixed('pdf-tools', EXPECTED['skills only, no CHANGELOG, no logo']!.rows),
      ...prefixed('linear-lite', EXPECTED['hosted MCP server named "linear", PNG logo, "## 1.0.0 — initial release"']!.rows),
      ...prefixed('acme-api', EXPECTED['Authorization: Bearer ${VAR} with "variables"']!.rows),
    });
  });
});

type Mutation = { base: () => FixtureFiles; mutate: (f: FixtureFiles) => FixtureFiles; changes: Record<string, CheckStatus | null>; summary: RegExp };
const manifest = (edit: (m: any) => void) => (f: FixtureFiles) => editJson(f, '.cursor-plugin/plugin.json', edit);
const put = (path: string, content: string | Buffer) => (f: FixtureFiles) => ({ ...f, [path]: content });
const fields = (summary: RegExp, edit: (m: any) => void): Mutation => ({ base: hostedMcp, mutate: manifest(edit), changes: { 'manifest.fields': 'FAIL' }, summary });
const paths = (key: string, value: string, also: Record<string, CheckStatus | null> = {}): Mutation => ({
  base: fullSvg, mutate: manifest((m) => { m[key] = value; }), changes: { 'manifest.paths': 'FAIL', ...also }, summary: new RegExp(`"${key}": "${value.replace(/[./]/g, '\\$&')}"`),
});

const MUTATIONS: Record<string, Mutation> = {
  'an unknown manifest key': { base: hostedMcp, mutate: manifest((m) => { m.id = 'linear'; }), changes: { 'manifest.keys': 'FAIL' }, summary: /"id", which Cursor's schema rejects/ },
  'a name outside the pattern': { base: hostedMcp, mutate: manifest((m) => { m.name = 'Linear_Lite'; }), changes: { 'manifest.name': 'FAIL' }, summary: /"name" "Linear_Lite" must be lowercase kebab-case/ },
  'homepage not a URL': fields(/"homepage" must be an absolute URL/, (m) => { m.homepage = 'linear.example.com'; }),
  'repository not a URL': fields(/"repository" must be an absolute URL/, (m) => { m.repository = 'github.com/example/linear-lite'; }),
  'author.email not an email': fields(/"author" "email" "plugins at example.com" must be an email address/, (m) => { m.author.email = 'plugins at example.com'; }),
  'author with a key other than name and email': fields(/"author" may hold only "name" and "email", not author\.url/, (m) => { m.author.url = 'https://example.com'; }),
  'keywords not an array of strings': fields(/"keywords" must be an array of strings/, (m) => { m.keywords = 'issues'; }),
  'tags not an array of strings': fields(/"tags" must be an array of strings/, (m) => { m.tags = ['ok', 3]; }),
  'displayName not a string': fields(/"displayName" must be a string/, (m) => { m.displayName = ['Linear']; }),
  'license not a string': fields(/"license" must be a string/, (m) => { m.license = { type: 'MIT' }; }),
  'category not a string': fields(/"category" must be a string/, (m) => { m.category = ['productivity']; }),
  'publisher empty': fields(/"publisher" must be a non-empty string/, (m) => { m.publisher = ''; }),
  'minClientVersions not an object of version strings': fields(/"minClientVersions" "cursor" must be a version "X\.Y\.Z"/, (m) => { m.minClientVersions = { cursor: 1.7 }; }),
  'minClientVersions not a strict semantic version': fields(/"minClientVersions" "cursor" must be a version "X\.Y\.Z"/, (m) => { m.minClientVersions = { cursor: '3.13' }; }),
  'minClientVersions empty': fields(/"minClientVersions" must be an object of client name to version/, (m) => { m.minClientVersions = {}; }),
  'variables not a JSON Schema object': fields(/"variables" must be \{"type": "object"/, (m) => { m.variables = { ACME_API_KEY: { type: 'string' } }; }),
  'a variables entry without type (advice: the validator does not look)': {
    base: bearerVariables, mutate: manifest((m) => { m.variables.properties.ACME_API_KEY = { description: 'key' }; }), changes: { 'manifest.fields': 'WARN' }, summary: /"variables" entry "ACME_API_KEY" has no "type"/,
  },
  'commands pointing at nothing': paths('commands', './command/', { 'commands.frontmatter': null }),
  'skills pointing at nothing': paths('skills', './skill/', { 'skills.frontmatter': null }),
  'rules pointing at nothing': paths('rules', './rule/', { 'rules.frontmatter': null }),
  'agents pointing at nothing': paths('agents', './agent/', { 'agents.frontmatter': null }),
  'hooks pointing at nothing': paths('hooks', './hooks/hook.json', { 'hooks.format': 'FAIL', 'hooks.anchored': 'PASS', 'hooks.timeouts': 'PASS', 'hooks.targets': 'PASS' }),
  'a path leaving the plugin': paths('commands', '../commands/', { 'commands.frontmatter': null }),
  'a skill without description': { base: fullSvg, mutate: put('skills/verify/SKILL.md', '---\nname: verify\n---\n'), changes: { 'skills.frontmatter': 'FAIL' }, summary: /SKILL\.md has no "description"/ },
  'a skill named unlike its folder (advice)': { base: fullSvg, mutate: put('skills/verify/SKILL.md', '---\nname: check\ndescription: Checks.\n---\n'), changes: { 'skills.frontmatter': 'WARN' }, summary: /differs from its folder "verify"/ },
  'a skill without frontmatter': { base: fullSvg, mutate: put('skills/verify/SKILL.md', '# Verify\n'), changes: { 'skills.frontmatter': 'FAIL' }, summary: /SKILL\.md has no frontmatter/ },
  'a rule whose alwaysApply is not a boolean': { base: fullSvg, mutate: put('rules/always.mdc', '---\nalwaysApply: yes please\n---\n'), changes: { 'rules.frontmatter': 'FAIL' }, summary: /"alwaysApply" must be true or false/ },
  'a rule whose globs is not a string or list': { base: fullSvg, mutate: put('rules/style.mdc', '---\ndescription: x\nglobs: 5\n---\n'), changes: { 'rules.frontmatter': 'FAIL' }, summary: /"globs" must be a string or a list/ },
  'a rule that never applies by itself (advice)': { base: fullSvg, mutate: put('rules/always.mdc', 'No frontmatter.\n'), changes: { 'rules.frontmatter': 'WARN' }, summary: /applied only when named by hand: rules\/always\.mdc/ },
  'an agent without name (advice)': { base: fullSvg, mutate: put('agents/reviewer.md', '---\ndescription: Reviews.\n---\n'), changes: { 'agents.frontmatter': 'WARN' }, summary: /reviewer\.md has no "name"/ },
  'a command without frontmatter (advice)': { base: fullSvg, mutate: put('commands/ship.md', 'Ship it.\n'), changes: { 'commands.frontmatter': 'WARN' }, summary: /ship\.md has no frontmatter/ },
  'an SVG logo that is not well-formed': { base: fullSvg, mutate: put('assets/logo.svg', '<svg viewBox="0 0 10 10"><g></svg>'), changes: { logo: 'FAIL' }, summary: /not well-formed SVG/ },
  'an SVG logo without viewBox (advice: it renders, unscaled)': { base: fullSvg, mutate: put('assets/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), changes: { logo: 'WARN' }, summary: /no usable viewBox, so it may not scale/ },
  'a logo neither PNG nor SVG': { base: hostedMcp, mutate: put('assets/logo.png', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70])), changes: { logo: 'FAIL' }, summary: /neither a PNG nor an SVG/ },
  'a logo that is missing': { base: hostedMcp, mutate: (f) => { const { 'assets/logo.png': _gone, ...rest } = f; return rest; }, changes: { logo: 'FAIL', 'manifest.paths': 'FAIL' }, summary: /logo assets\/logo\.png is missing/ },
  'a PNG logo that is not square (advice)': { base: hostedMcp, mutate: put('assets/logo.png', png(256, 128)), changes: { logo: 'WARN' }, summary: /256x128 PNG: not square/ },
  'mcp.json with "$schema"': { base: hostedMcp, mutate: (f) => editJson(f, 'mcp.json', (d) => { d.$schema = 'https://example.com/s.json'; }), changes: { 'mcp.no-$schema': 'FAIL' }, summary: /registers no server at all/ },
  'a server with neither url nor command': { base: hostedMcp, mutate: (f) => editJson(f, 'mcp.json', (d) => { delete d.mcpServers.linear.url; }), changes: { 'mcp.servers': 'FAIL' }, summary: /linear has neither "url" nor "command"/ },
  'an undeclared ${VAR} (advice)': { base: bearerVariables, mutate: manifest((m) => { delete m.variables; }), changes: { 'mcp.variables': 'WARN' }, summary: /\$\{ACME_API_KEY\} used in a server but not declared/ },
  'a hook script that is missing': { base: hooksRelative, mutate: (f) => { const { 'hooks/save.sh': _gone, ...rest } = f; return rest; }, changes: { 'hooks.targets': 'FAIL' }, summary: /stop: hooks\/save\.sh/ },
  'hooks.json of another version': { base: hooksRelative, mutate: (f) => editJson(f, 'hooks/hooks.json', (h) => { h.version = 2; }), changes: { 'hooks.format': 'FAIL' }, summary: /"version" must be 1/ },
};

describe('one mutation per fault: exactly the rows it should change', () => {
  it.each(Object.keys(MUTATIONS))('%s', (name) => {
    const { base, mutate, changes, summary } = MUTATIONS[name]!;
    const before = rows(folder(base()));
    const dir = folder(mutate(base()));
    const expected: Rows = { ...before };
    for (const [id, status] of Object.entries(changes)) {
      if (status === null) delete expected[id];
      else expected[id] = status;
    }
    expect(rows(dir)).toEqual(expected);
    const target = Object.keys(changes)[0]!;
    const check = checkOf(dir, target);
    expect(check.summary).toMatch(summary);
    expect(check.fix).toBeTruthy();
  });
});

describe('marketplace faults', () => {
  const withEntry = (edit: (plugins: any[]) => void) => editJson(marketplace(), '.cursor-plugin/marketplace.json', (d) => edit(d.plugins));
  const statusOf = (files: FixtureFiles, id: string) => auditFolder(folder(files)).checks.find((c) => c.id === id)!;

  it('an entry whose name differs from its plugin.json name', () => {
    const files = editJson(marketplace(), 'third_party/linear-lite/.cursor-plugin/plugin.json', (m) => { m.name = 'linear-light'; });
    const check = statusOf(files, 'marketplace.sources');
    expect(check.status).toBe('FAIL');
    expect(check.summary).toBe('"linear-lite" is named "linear-light" in its plugin.json');
  });

  it('an entry with a key other than name, source and description', () => {
    const check = statusOf(withEntry((p) => { p[0].version = '1.0.0'; }), 'marketplace.json');
    expect(check.status).toBe('FAIL');
    expect(check.summary).toMatch(/plugins\[0\] has "version": only name, source, description and minClientVersions/);
  });

  it('a source that does not exist, or leaves the repository', () => {
    const check = statusOf(withEntry((p) => { p[1].source = 'third_party/nothing'; p[2].source = '../acme-api'; }), 'marketplace.sources');
    expect(check.status).toBe('FAIL');
    expect(check.summary).toBe('"linear-lite" source "third_party/nothing" does not exist; "acme-api" source "../acme-api" must be a folder inside the repository');
  });
});

describe('profiles', () => {
  it('--profile agentstack holds any plugin to AgentStack\'s rules (and the generic advice becomes a FAIL)', () => {
    const dir = folder(hooksRelative());
    const report = auditFolder(dir, { profile: 'agentstack' });
    expect(report.profile).toBe('agentstack');
    const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(status['hooks.anchored']).toBe('FAIL');
    expect(status['hooks.timeouts']).toBe('FAIL');
    expect(status['mcp.no-headers']).toBe('FAIL');
    expect(status['manifest.mcpServers']).toBe('FAIL');
  });

  it('--profile agentstack judges the bundles of a folder that is not this repository by their banner, and says why', () => {
    const banner = '// Generated by esbuild from lib/entries/x.ts; do not edit (npm run build).\n';
    const dir = folder({ ...skillsOnly(), 'scripts/x.mjs': `${banner}export {};\n` });
    const fresh = (options: AuditOptions) => auditFolder(dir, options).checks.find((c) => c.id === 'bundles.fresh')!.summary;
    expect(fresh({ profile: 'agentstack' })).toBe('not this repository, so its code is not run; 1 bundle(s) carry the generated banner');
    expect(fresh({ profile: 'agentstack', noRebuild: true })).toBe('rebuild skipped (--no-rebuild); 1 bundle(s) carry the generated banner');
  });

  it('the generic profile runs none of the folder\'s code, even asked to rebuild; the agentstack profile then does', () => {
    const marker = join(tmp.path, `marker${n}`);
    const dir = folder({
      ...skillsOnly(), 'build/bundles.mjs': '', 'node_modules/esbuild/package.json': '{}',
      'build/build.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n`,
    });
    const progress: string[] = [];
    auditFolder(dir, { profile: 'generic', rebuild: true, onProgress: (line) => progress.push(line) });
    expect([existsSync(marker), progress]).toEqual([false, []]);
    auditFolder(dir, { profile: 'agentstack', rebuild: true, onProgress: (line) => progress.push(line) });
    expect([existsSync(marker), progress.length]).toEqual([true, 1]);
  });

  it('a marketplace report names the profile asked for, "auto" when none was', () => {
    const dir = folder(marketplace());
    expect(auditFolder(dir).profile).toBe('auto');
    expect(auditFolder(dir, { profile: 'generic' }).profile).toBe('generic');
  });

  it('this plugin audited with --profile generic passes with no AgentStack rows', () => {
    const dir = join(tmp.path, `own${n++}`);
    mkdirSync(dir);
    copyPlugin(dir);
    const report = auditFolder(dir, { profile: 'generic' });
    expect(report.checks.filter((c) => c.status !== 'PASS')).toEqual([]);
    expect(report.checks.map((c) => c.id)).not.toContain('mcp.no-headers');
    expect(report.checks.map((c) => c.id)).not.toContain('bundles.fresh');
  });
});

describe('an unreadable plugin.json', () => {
  it('names the file once, not "plugin.json plugin.json cannot be read"', () => {
    const report = auditFolder(folder({ ...hostedMcp(), '.cursor-plugin/plugin.json': '{ not json' }));
    const name = report.checks.find((c) => c.id === 'manifest.name')!;
    expect(name.status).toBe('FAIL');
    expect(name.summary).toBe('plugin.json cannot be read');
  });
});
