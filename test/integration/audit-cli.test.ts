/**
 * How the audit "runs in CI": the committed bundle audits this repository (rebuilding the bundles to compare them)
 * and must exit 0; a broken plugin folder exits 1 with the rule named.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

const SCRIPT = join(REPO_ROOT, 'scripts/audit-cursor-plugin.mjs');
const audit = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 180_000 });

describe('audit-cursor-plugin', () => {
  it('passes on this repository, bundles rebuilt and compared', () => {
    const r = audit(REPO_ROOT);
    expect(r.stdout).toMatch(/^PASS\s+bundles\.fresh\s+every bundle is byte-identical to a fresh build/m);
    expect(r.stdout, r.stdout).toMatch(/, 0 failed$/m);
    expect(r.status).toBe(0);
  }, 180_000);

  it('defaults to the plugin the script belongs to', () => {
    const r = audit('--no-rebuild', '--json');
    expect(JSON.parse(r.stdout).dir).toBe(REPO_ROOT);
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

  it('answers bad usage with exit 2', () => {
    expect(audit('a', 'b').status).toBe(2);
    expect(audit('--nope').status).toBe(2);
  });
});
