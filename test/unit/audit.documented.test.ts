/**
 * The generic layer on the forms Cursor documents and ships beyond the plainest plugins: a static OAuth `auth` block,
 * a server `url` that is a variable, `${env:NAME}`, a skill named like a title, hooks.json without `version` and with
 * a prompt hook, marketplace entries with `minClientVersions`. Each fixture passes with no FAIL (its exact rows);
 * then one mutation per fault, with the rows it changes: FAIL only for what Cursor rejects or cannot use, WARN for
 * what the docs ask and Cursor loads anyway.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFolder, auditPlugin } from '../../lib/commands/audit/auditPlugin.js';
import type { CheckStatus } from '../../lib/platform/report.js';
import {
  documentedHooks, editJson, marketplaceWithVersions, staticOAuth, titledSkill, variableUrl, writeFixture, type FixtureFiles,
} from '../helpers/pluginFixtures.js';
import { tempDir } from '../helpers/repo.js';

type Rows = Record<string, CheckStatus>;
let tmp: ReturnType<typeof tempDir>;
let n = 0;
beforeAll(() => { tmp = tempDir('agentstack-audit-documented-'); });
afterAll(() => tmp?.cleanup());

const folder = (files: FixtureFiles) => writeFixture(join(tmp.path, `f${n++}`), files);
const rows = (dir: string): Rows => Object.fromEntries(auditPlugin(dir).map((c) => [c.id, c.status]));
const checkOf = (dir: string, id: string) => auditPlugin(dir).find((c) => c.id === id)!;

const MANIFEST_OK: Rows = { 'manifest.keys': 'PASS', 'manifest.name': 'PASS', 'manifest.fields': 'PASS', 'manifest.paths': 'PASS' };
const MCP_OK: Rows = { 'mcp.no-$schema': 'PASS', 'mcp.servers': 'PASS', 'mcp.variables': 'PASS' };

const EXPECTED: Record<string, { files: () => FixtureFiles; rows: Rows }> = {
  'a static OAuth client in "auth" (CLIENT_ID, CLIENT_SECRET as variables), no "type"': {
    files: staticOAuth,
    rows: { ...MANIFEST_OK, versions: 'PASS', ...MCP_OK, 'mcp.auth': 'PASS', logo: 'PASS', secrets: 'PASS' },
  },
  'a "url" that is a variable, "auth" with scopes': {
    files: variableUrl,
    rows: { ...MANIFEST_OK, versions: 'PASS', ...MCP_OK, 'mcp.auth': 'PASS', logo: 'PASS', secrets: 'PASS' },
  },
  'a skill named like a title (advice: Cursor loads it)': {
    files: titledSkill,
    rows: { ...MANIFEST_OK, versions: 'PASS', 'skills.frontmatter': 'WARN', logo: 'WARN', secrets: 'PASS' },
  },
  'hooks.json without "version", a prompt hook, an extra key on an entry': {
    files: documentedHooks,
    rows: { ...MANIFEST_OK, versions: 'PASS', 'hooks.format': 'PASS', 'hooks.anchored': 'PASS', 'hooks.timeouts': 'PASS', 'hooks.targets': 'PASS', logo: 'PASS', secrets: 'PASS' },
  },
};

describe('forms Cursor documents and ships', () => {
  it.each(Object.keys(EXPECTED))('%s: exactly the expected rows, no FAIL', (name) => {
    const { files, rows: expected } = EXPECTED[name]!;
    const report = auditFolder(folder(files()));
    expect(report.profile).toBe('generic');
    expect(Object.fromEntries(report.checks.map((c) => [c.id, c.status]))).toEqual(expected);
  });

  it('says what it accepted', () => {
    expect(checkOf(folder(variableUrl()), 'mcp.variables').summary).toBe('2 placeholder(s), each declared or built in');
    expect(checkOf(folder(documentedHooks()), 'hooks.format').summary).toBe('1 hook command(s) and 1 prompt hook(s) in hooks/hooks.json');
    const skill = checkOf(folder(titledSkill()), 'skills.frontmatter');
    expect(skill.summary).toBe('skills/focus-mode/SKILL.md "name" "Focus Mode" is not kebab-case');
    expect(skill.fix).toMatch(/docs ask for a "name" in lowercase kebab-case equal to the skill's folder/);
  });

  it('${env:NAME} and Cursor\'s own placeholders need no declaration, in url, headers and auth', () => {
    const files = editJson(staticOAuth(), 'mcp.json', (d) => {
      d.mcpServers.calls.url = '${env:CALLS_URL}/mcp';
      d.mcpServers.calls.headers = { 'X-Home': '${userHome}', Authorization: 'Bearer ${env:CALLS_TOKEN}' };
      d.mcpServers.calls.auth.CLIENT_ID = '${env:CALLS_CLIENT_ID}';
    });
    expect(rows(folder(files))).toEqual(rows(folder(staticOAuth())));
  });

  it('a marketplace whose entries carry minClientVersions: no FAIL anywhere', () => {
    const report = auditFolder(folder(marketplaceWithVersions()));
    if (report.kind !== 'marketplace') throw new Error('not read as a marketplace');
    expect(report.checks.filter((c) => c.id.startsWith('marketplace.')).map((c) => c.status)).toEqual(['PASS', 'PASS']);
    expect(report.plugins.map((p) => [p.name, p.ok, p.counts.FAIL])).toEqual([['org-records', true, 0], ['calls-kit', true, 0], ['work-style', true, 0]]);
    expect(report.checks.filter((c) => c.status === 'FAIL')).toEqual([]);
  });
});

type Mutation = { base: () => FixtureFiles; mutate: (f: FixtureFiles) => FixtureFiles; changes: Record<string, CheckStatus>; summary: RegExp };
const mcp = (edit: (server: any) => void, server = 'calls') => (f: FixtureFiles) => editJson(f, 'mcp.json', (d) => edit(d.mcpServers[server]));
const auth = (edit: (a: any) => void, status: CheckStatus, summary: RegExp): Mutation => ({ base: staticOAuth, mutate: mcp((s) => edit(s.auth)), changes: { 'mcp.auth': status }, summary });
const url = (value: string, changes: Record<string, CheckStatus>, summary: RegExp): Mutation => ({ base: variableUrl, mutate: mcp((s) => { s.url = value; }, 'records'), changes, summary });
const hooks = (edit: (h: any) => void, summary: RegExp): Mutation => ({ base: documentedHooks, mutate: (f) => editJson(f, 'hooks/hooks.json', edit), changes: { 'hooks.format': 'FAIL' }, summary });

const MUTATIONS: Record<string, Mutation> = {
  'auth without CLIENT_ID': auth((a) => { delete a.CLIENT_ID; }, 'FAIL', /calls "auth\.CLIENT_ID" must be a non-empty string/),
  'auth CLIENT_ID not a string': auth((a) => { a.CLIENT_ID = 1234; }, 'FAIL', /"auth\.CLIENT_ID" must be a non-empty string/),
  'auth CLIENT_SECRET not a string': auth((a) => { a.CLIENT_SECRET = { value: 'x' }; }, 'FAIL', /"auth\.CLIENT_SECRET" must be a string/),
  'auth scopes a string, not a list': auth((a) => { a.scopes = 'read write'; }, 'FAIL', /"auth\.scopes" must be an array of scope strings/),
  'auth scopes with a number': auth((a) => { a.scopes = ['read', 7]; }, 'FAIL', /"auth\.scopes" must be an array of scope strings/),
  'auth not an object': { base: staticOAuth, mutate: mcp((s) => { s.auth = 'oauth'; }), changes: { 'mcp.auth': 'FAIL' }, summary: /"auth" must be an object/ },
  'auth with a key Cursor does not read (advice)': auth((a) => { a.redirect_uri = 'http://localhost:8787/callback'; }, 'WARN', /"auth" has "redirect_uri", which Cursor does not read/),
  'auth with a written-out client secret (advice)': auth((a) => { a.CLIENT_SECRET = 'not-a-variable'; }, 'WARN', /"auth\.CLIENT_SECRET" is written out/),
  'auth on a command server (advice)': { base: staticOAuth, mutate: mcp((s) => { delete s.url; s.command = 'calls-mcp'; }), changes: { 'mcp.auth': 'WARN' }, summary: /"auth" is for a server reached by "url"/ },
  'auth naming an undeclared variable (advice)': { base: staticOAuth, mutate: mcp((s) => { s.auth.CLIENT_ID = '${OTHER_ID}'; }), changes: { 'mcp.variables': 'WARN' }, summary: /\$\{OTHER_ID\} used in a server but not declared/ },
  'a url that is an undeclared variable (advice)': url('${ORG_URL}', { 'mcp.variables': 'WARN' }, /\$\{ORG_URL\} used in a server but not declared/),
  'a url whose host is an undeclared variable (advice)': url('https://${ORG_HOST}/mcp', { 'mcp.variables': 'WARN' }, /\$\{ORG_HOST\} used in a server/),
  'a url that starts with a folder placeholder': url('${workspaceFolder}/mcp', { 'mcp.servers': 'FAIL' }, /records "url" starts with \$\{workspaceFolder\}, a folder, not an http\(s\) URL/),
  'a url with a "${" never closed': url('${ORG_MCP_URL/mcp', { 'mcp.servers': 'FAIL' }, /records "url" has a "\$\{" that is never closed/),
  'a url of another scheme': url('ftp://records.example.com/${ORG_MCP_URL}', { 'mcp.servers': 'FAIL' }, /records "url" must be an http\(s\) URL/),
  'hooks.json "version" 2': hooks((h) => { h.version = 2; }, /"version" must be 1/),
  'a prompt hook without its prompt': hooks((h) => { delete h.hooks.stop[0].prompt; }, /"stop" has a prompt hook without a "prompt"/),
  'a hook of a type that does not run': hooks((h) => { h.hooks.stop[0].type = 'agent'; }, /"stop" has an entry of type "agent": only "command" and "prompt" run/),
};

describe('one mutation per fault: exactly the rows it should change', () => {
  it.each(Object.keys(MUTATIONS))('%s', (name) => {
    const { base, mutate, changes, summary } = MUTATIONS[name]!;
    const before = rows(folder(base()));
    const dir = folder(mutate(base()));
    expect(rows(dir)).toEqual({ ...before, ...changes });
    const check = checkOf(dir, Object.keys(changes)[0]!);
    expect(check.summary).toMatch(summary);
    expect(check.fix).toBeTruthy();
  });
});

describe('marketplace.json as Cursor\'s schema reads it', () => {
  const statusOf = (edit: (d: any) => void, id = 'marketplace.json') => {
    const files = editJson(marketplaceWithVersions(), '.cursor-plugin/marketplace.json', edit);
    return auditFolder(folder(files)).checks.find((c) => c.id === id)!;
  };

  it.each([
    ['an entry whose minClientVersions is not X.Y.Z', (d: any) => { d.plugins[0].minClientVersions = { cursor: 'latest' }; }, /plugins\[0\] "minClientVersions" "cursor" must be a version "X\.Y\.Z"/],
    ['an entry whose minClientVersions is empty', (d: any) => { d.plugins[1].minClientVersions = {}; }, /plugins\[1\] "minClientVersions" must be an object/],
    ['a top-level key the schema does not know', (d: any) => { d.version = '1.0.0'; }, /marketplace\.json has "version": only name, owner, metadata and plugins/],
    ['an owner with another key', (d: any) => { d.owner.url = 'https://example.com'; }, /"owner" may hold only "name" and "email", not "url"/],
    ['an owner email that is not one', (d: any) => { d.owner.email = 'labs'; }, /"owner\.email" must be an email address/],
    ['an empty name', (d: any) => { d.name = ''; }, /"name" must be a non-empty string/],
  ])('FAIL: %s', (_name, edit, summary) => {
    const check = statusOf(edit);
    expect(check.status).toBe('FAIL');
    expect(check.summary).toMatch(summary);
  });

  it('WARN: no owner (the docs show one; the schema does not require it)', () => {
    const check = statusOf((d) => { delete d.owner; });
    expect(check.status).toBe('WARN');
    expect(check.summary).toBe('there is no "owner" ({"name": "…"})');
  });
});
