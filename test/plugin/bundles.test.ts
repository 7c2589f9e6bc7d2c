import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module shared with the build script
import { BUNDLES, bannerFor } from '../../build/bundles.mjs';
import { bareImports } from '../../lib/commands/audit/bundleRules.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

type Bundle = { entry: string; out: string };
const bundles = BUNDLES as Bundle[];

describe('committed bundles', () => {
  const fresh = tempDir('agentstack-build-');
  beforeAll(() => {
    execFileSync(process.execPath, [join(REPO_ROOT, 'build/build.mjs'), '--outdir', fresh.path], { stdio: 'pipe' });
  }, 120_000);
  afterAll(() => fresh.cleanup());

  it.each(bundles)('$out is byte-identical to a fresh build', ({ out }) => {
    const committed = readFileSync(join(REPO_ROOT, out));
    const rebuilt = readFileSync(join(fresh.path, out));
    expect(committed.equals(rebuilt), `${out} is stale: run npm run build and commit it`).toBe(true);
  });

  it.each(bundles)('$out starts with the generated banner naming its source', ({ entry, out }) => {
    const firstLine = readFileSync(join(REPO_ROOT, out), 'utf8').split('\n')[0];
    expect(firstLine).toBe(bannerFor(entry));
  });

  it('builds the same bytes twice (reproducible)', () => {
    const again = tempDir('agentstack-build2-');
    try {
      execFileSync(process.execPath, [join(REPO_ROOT, 'build/build.mjs'), '--outdir', again.path], { stdio: 'pipe' });
      for (const { out } of bundles) expect(readFileSync(join(again.path, out)).equals(readFileSync(join(fresh.path, out)))).toBe(true);
    } finally {
      again.cleanup();
    }
  }, 120_000);
});

describe('installed the way Cursor installs a plugin (plain files, no npm install)', () => {
  const install = tempDir('agentstack-install-');
  const skip = new Set(['node_modules', 'test', '.git', 'test-output']);
  beforeAll(() => {
    for (const name of readdirSync(REPO_ROOT)) {
      if (!skip.has(name)) cpSync(join(REPO_ROOT, name), join(install.path, name), { recursive: true });
    }
  });
  afterAll(() => install.cleanup());

  it('has no node_modules anywhere up the tree of the copy', () => {
    // Node resolves a bare import from the node_modules of every folder above the importing file, up to the file
    // system root: the --help runs below prove the bundles need no package only if there is none to find there.
    const found = new Set<string>();
    for (const { out } of bundles) {
      for (let dir = dirname(join(install.path, out)); ; dir = dirname(dir)) {
        if (existsSync(join(dir, 'node_modules'))) found.add(join(dir, 'node_modules'));
        if (dirname(dir) === dir) break;
      }
    }
    expect([...found]).toEqual([]);
  });

  it.each(bundles)('node $out --help exits 0', ({ out }) => {
    const result = spawnSync(process.execPath, [join(install.path, out), '--help'], {
      cwd: install.path,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: install.path, NODE_PATH: '' },
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: /);
  });

  it.each(bundles)('$out imports no package at run time (only node: built-ins)', ({ out }) => {
    expect(bareImports(readFileSync(join(install.path, out), 'utf8'))).toEqual([]);
  });
});

describe('the pre-MCP hook bundle stays light (it runs before every MCP call)', () => {
  it('includes neither the MCP SDK, undici, oauth4webapi nor conf', async () => {
    const { build } = await import('esbuild');
    const entry = bundles.find((b) => b.out.endsWith('pre-mcp-cap-check.mjs'))!.entry;
    const meta = await build({ absWorkingDir: REPO_ROOT, entryPoints: [join(REPO_ROOT, entry)], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(meta.metafile.inputs);
    expect(inputs.some((p) => p.startsWith('lib/commands/preMcp/'))).toBe(true);
    expect(inputs.filter((p) => /node_modules\/(@modelcontextprotocol|undici|oauth4webapi|conf)\//.test(p))).toEqual([]);
  });
});
