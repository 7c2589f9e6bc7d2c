/**
 * How the audit "runs in CI": the committed bundle audits this repository in the AgentStack profile (rebuilding the
 * bundles to compare them, which only this repository's own tree gets) and must exit 0; a broken plugin folder exits
 * 1 with the rule named; other plugins and marketplace repositories get the generic layer.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { hostedMcp, marketplace, writeFixture } from '../helpers/pluginFixtures.js';
import { IS_WINDOWS } from '../helpers/platform.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

const SCRIPT = join(REPO_ROOT, 'scripts/audit-cursor-plugin.mjs');
const audit = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 180_000 });

/**
 * Exit 2, exactly one line on stderr (no stack trace) that matches `line`; nothing on stdout, or with --json the one
 * JSON error object every script prints for bad usage.
 */
function expectOneLine(r: ReturnType<typeof audit>, line: RegExp, { json = false } = {}) {
  expect(r.status, r.stderr).toBe(2);
  if (json) expect(JSON.parse(r.stdout)).toEqual({ error: 'usage', message: expect.stringMatching(line.source.replace(/^\^audit-cursor-plugin: /, '')) });
  else expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(line);
}

describe('audit-cursor-plugin', () => {
  it('passes on this repository, bundles rebuilt and compared', () => {
    const r = audit(REPO_ROOT);
    expect(r.stdout).toMatch(/^PASS\s+bundles\.fresh\s+every bundle is byte-identical to a fresh build/m);
    expect(r.stdout, r.stdout).toMatch(/, 0 failed$/m);
    expect(r.status).toBe(0);
  }, 180_000);

  it('defaults to the plugin the script belongs to, in the AgentStack profile', () => {
    const r = audit('--no-rebuild', '--json');
    expect(JSON.parse(r.stdout)).toMatchObject({ dir: REPO_ROOT, kind: 'plugin', profile: 'agentstack' });
    expect(r.status).toBe(0);
  });

  it('exits 1 on a broken plugin folder and names the rule', () => {
    const dir = tempDir('agentstack-audit-cli-');
    try {
      copyPlugin(dir.path);
      const mcp = JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8'));
      mcp.$schema = 'https://example.com/schema.json';
      writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify(mcp));
      const r = audit(dir.path, '--json');
      const report = JSON.parse(r.stdout);
      expect(report.ok).toBe(false);
      expect(report.checks.find((c: { id: string }) => c.id === 'mcp.no-$schema').status).toBe('FAIL');
      expect(report.checks.find((c: { id: string }) => c.id === 'bundles.fresh').summary).toMatch(/not this repository, so its code is not run/);
      expect(report.profile).toBe('agentstack');
      expect(r.status).toBe(1);
    } finally {
      dir.cleanup();
    }
  });

  it('audits another plugin with the generic profile, and with AgentStack\'s when asked', () => {
    const dir = tempDir('agentstack-audit-cli-');
    try {
      writeFixture(dir.path, hostedMcp());
      const generic = audit(dir.path, '--json');
      expect(JSON.parse(generic.stdout)).toMatchObject({ kind: 'plugin', profile: 'generic', ok: true, counts: { FAIL: 0 } });
      expect(generic.status).toBe(0);
      const strict = audit(dir.path, '--profile', 'agentstack');
      expect(strict.stdout).toMatch(/^Cursor plugin audit: .* \(profile agentstack\)$/m);
      expect(strict.stdout).toMatch(/^FAIL\s+mcp\.no-headers\s+mcp\.json has no "mcpServers\.agentstack" entry/m);
      expect(strict.status).toBe(1);
    } finally {
      dir.cleanup();
    }
  });

  it('audits a marketplace repository plugin by plugin, with one summary', () => {
    const dir = tempDir('agentstack-audit-cli-');
    try {
      writeFixture(dir.path, marketplace());
      const text = audit(dir.path);
      expect(text.stdout).toMatch(/^Cursor marketplace audit: .* \(3 plugins\)$/m);
      expect(text.stdout).toMatch(/^PASS\s+linear-lite\/mcp\.servers\s+1 MCP server\(s\): linear$/m);
      expect(text.stdout.match(/ passed, /g)).toHaveLength(1);
      expect(text.status).toBe(0);
      const report = JSON.parse(audit(dir.path, '--json').stdout);
      expect(report).toMatchObject({ kind: 'marketplace', profile: 'auto', ok: true });
      expect(report.plugins.map((p: { name: string; profile: string }) => `${p.name}:${p.profile}`)).toEqual(['pdf-tools:generic', 'linear-lite:generic', 'acme-api:generic']);
    } finally {
      dir.cleanup();
    }
  });

  it('a missing folder or a file instead of a folder: one line, exit 2', () => {
    const dir = tempDir('agentstack-audit-cli-');
    try {
      expectOneLine(audit(join(dir.path, 'does-not-exist')), /^audit-cursor-plugin: .*does-not-exist does not exist$/m);
      writeFileSync(join(dir.path, 'plugin.json'), '{}');
      expectOneLine(audit(join(dir.path, 'plugin.json'), '--json'), /^audit-cursor-plugin: .*plugin\.json is a file, not a plugin folder/m, { json: true });
    } finally {
      dir.cleanup();
    }
  });

  it.skipIf(IS_WINDOWS)('a link that loops, a folder that cannot be listed: one line, exit 2', () => {
    const dir = tempDir('agentstack-audit-cli-');
    try {
      symlinkSync(join(dir.path, 'loop'), join(dir.path, 'loop'));
      expectOneLine(audit(join(dir.path, 'loop')), /^audit-cursor-plugin: .*loop is a symbolic link that loops$/m);
      // root reads any folder: run a copy of the (self-contained) bundle as `nobody` so 0000 means unreadable
      const uid = process.getuid?.() === 0 ? 65534 : undefined;
      chmodSync(dir.path, 0o755);
      const script = join(dir.path, 'audit.mjs');
      copyFileSync(SCRIPT, script);
      const locked = join(dir.path, 'locked');
      mkdirSync(locked, { mode: 0o000 });
      chmodSync(locked, 0o000);
      const r = spawnSync(process.execPath, [script, locked], { encoding: 'utf8', timeout: 60_000, uid, cwd: dir.path });
      expectOneLine(r, /^audit-cursor-plugin: .*locked cannot be read \(permission denied\)$/m);
      const plugin = writeFixture(join(dir.path, 'plugin'), hostedMcp());
      mkdirSync(join(plugin, 'skills'), { mode: 0o000 });
      chmodSync(join(plugin, 'skills'), 0o000);
      const inner = spawnSync(process.execPath, [script, plugin], { encoding: 'utf8', timeout: 60_000, uid, cwd: dir.path });
      expectOneLine(inner, /^audit-cursor-plugin: .*plugin\/skills cannot be read \(permission denied\)$/m);
      chmodSync(join(plugin, 'skills'), 0o755);
      chmodSync(locked, 0o755);
    } finally {
      dir.cleanup();
    }
  });

  it('answers bad usage with exit 2', () => {
    expect(audit('a', 'b').status).toBe(2);
    expect(audit('--nope').status).toBe(2);
    expect(audit('--profile', 'strict').status).toBe(2);
    expect(audit('--rebuild', '--no-rebuild').status).toBe(2);
  });
});
