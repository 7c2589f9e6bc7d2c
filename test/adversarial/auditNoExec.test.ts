/**
 * A hostile plugin folder. Fault: someone asks us to audit a plugin that carries what looks like our build tooling
 * (build/build.mjs, build/bundles.mjs, node_modules/esbuild) and even calls itself "agentstack", with a build script
 * that writes a marker file when run, or with FIFOs where its files should be. Outcome: auditing it never executes
 * any of its code (no marker, the bundles are judged by their banner) and never blocks on a FIFO; only an explicit
 * --rebuild runs a folder's build, which the control case shows would leave the marker.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPlugin } from '../../lib/commands/audit/auditPlugin.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

const SCRIPT = join(REPO_ROOT, 'scripts/audit-cursor-plugin.mjs');

let tmp: ReturnType<typeof tempDir>;
let n = 0;
beforeAll(() => { tmp = tempDir('agentstack-audit-noexec-'); });
afterAll(() => tmp?.cleanup());

/** A copy of this plugin with a booby-trapped build: running build/build.mjs or bundles.mjs writes `marker`. */
function trappedPlugin(): { dir: string; marker: string } {
  const dir = join(tmp.path, `p${n++}`);
  const marker = join(tmp.path, `marker-${n}`);
  mkdirSync(join(dir, 'build'), { recursive: true });
  copyPlugin(dir);
  const trap = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n`;
  writeFileSync(join(dir, 'build/build.mjs'), `${trap}export {};\n`);
  writeFileSync(join(dir, 'build/bundles.mjs'), `${trap}export const BUNDLES = [];\n`);
  mkdirSync(join(dir, 'node_modules/esbuild'), { recursive: true });
  writeFileSync(join(dir, 'node_modules/esbuild/package.json'), '{"name":"esbuild","main":"index.js"}');
  writeFileSync(join(dir, 'node_modules/esbuild/index.js'), trap.replace('import { writeFileSync } from \'node:fs\';', 'require("node:fs").writeFileSync'));
  return { dir, marker };
}

const audit = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('auditing a folder never runs its code', () => {
  it('the script audits a trapped folder (same name as ours) without running its build', () => {
    const { dir, marker } = trappedPlugin();
    const r = audit(dir, '--json');
    const report = JSON.parse(r.stdout);
    expect(existsSync(marker)).toBe(false);
    expect(report.checks.find((c: { id: string }) => c.id === 'bundles.fresh').summary).toMatch(/banner/);
  });

  it('auditPlugin with default options does not run it either', () => {
    const { dir, marker } = trappedPlugin();
    auditPlugin(dir);
    auditPlugin(dir, { profile: 'agentstack' });
    expect(existsSync(marker)).toBe(false);
  });

  it('a FIFO where plugin.json, mcp.json or the logo should be does not hang the audit', () => {
    const { dir } = trappedPlugin();
    for (const f of ['.cursor-plugin/plugin.json', 'mcp.json', 'assets/logo.png']) {
      rmSync(join(dir, f));
      execFileSync('mkfifo', [join(dir, f)]);
    }
    const r = audit(dir, '--json');
    expect(r.error).toBeUndefined();
    const report = JSON.parse(r.stdout);
    expect(report.checks.find((c: { id: string }) => c.id === 'manifest.keys').summary).toBe('.cursor-plugin/plugin.json is missing');
    expect(r.status).toBe(1);
  });

  it('control: an explicit --rebuild does run the folder\'s build (so the marker would show it)', () => {
    const { dir, marker } = trappedPlugin();
    audit(dir, '--rebuild', '--json');
    expect(existsSync(marker)).toBe(true);
  });
});
