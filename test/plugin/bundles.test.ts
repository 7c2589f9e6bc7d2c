import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module shared with the build script
import { ALIASES, BUNDLES, bannerFor, bundleFiles } from '../../build/bundles.mjs';
import { bareImports } from '../../lib/commands/audit/bundleRules.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { baseChildEnv } from '../helpers/platform.js';

type Bundle = { entry: string; out: string; chunks?: Array<{ out: string; modules: string[] }> };
const bundles = BUNDLES as Bundle[];
/** Every built file: the scripts and their sibling chunks (same banner, same rules). */
const files = (bundleFiles as () => Array<{ entry: string; out: string; chunk: boolean }>)();

describe('committed bundles', () => {
  const fresh = tempDir('agentstack-build-');
  beforeAll(() => {
    execFileSync(process.execPath, [join(REPO_ROOT, 'build/build.mjs'), '--outdir', fresh.path], { stdio: 'pipe' });
  }, 120_000);
  afterAll(() => fresh.cleanup());

  it.each(files)('$out is byte-identical to a fresh build', ({ out }) => {
    const committed = readFileSync(join(REPO_ROOT, out));
    const rebuilt = readFileSync(join(fresh.path, out));
    expect(committed.equals(rebuilt), `${out} is stale: run npm run build and commit it`).toBe(true);
  });

  it.each(files)('$out starts with the generated banner naming its source', ({ entry, out }) => {
    const firstLine = readFileSync(join(REPO_ROOT, out), 'utf8').split('\n')[0];
    expect(firstLine).toBe(bannerFor(entry));
  });

  it('builds the same bytes twice (reproducible)', () => {
    const again = tempDir('agentstack-build2-');
    try {
      execFileSync(process.execPath, [join(REPO_ROOT, 'build/build.mjs'), '--outdir', again.path], { stdio: 'pipe' });
      for (const { out } of files) expect(readFileSync(join(again.path, out)).equals(readFileSync(join(fresh.path, out)))).toBe(true);
    } finally {
      again.cleanup();
    }
  }, 120_000);
});

describe('installed the way Cursor installs a plugin (plain files, no npm install)', () => {
  const install = tempDir('agentstack-install-');
  const skip = new Set(['node_modules', 'test', '.git', 'test-output', '.node-cache']);
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
      env: { ...baseChildEnv(), HOME: install.path, NODE_PATH: '' },
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: /);
  });

  it.each(files)('$out imports no package at run time (only node: built-ins)', ({ out }) => {
    expect(bareImports(readFileSync(join(install.path, out), 'utf8'))).toEqual([]);
  });

  it('hooks/scripts and scripts hold only built files (no stale chunk or script left behind)', () => {
    const built = new Set(files.map((f) => f.out));
    const shipped = ['hooks/scripts', 'scripts'].flatMap((d) => readdirSync(join(REPO_ROOT, d)).map((f) => `${d}/${f}`));
    expect(shipped.filter((f) => !built.has(f))).toEqual([]);
  });

  it.each(bundles.filter((b) => b.chunks))('$out loads only its own sibling chunks, by file name next to it', ({ out, chunks }) => {
    // The script and its chunks together name every chunk (a chunk may load another: the pre-MCP check stage loads
    // the deny and execute chunks), and nothing else.
    const named = (file: string) => [...readFileSync(join(install.path, file), 'utf8').matchAll(/"([\w.-]+\.cjs)"/g)].map((m) => m[1]);
    const own = chunks!.map((c) => c.out.split('/').pop()!);
    expect(named(out).length).toBeGreaterThan(0);
    expect([...new Set([out, ...chunks!.map((c) => c.out)].flatMap(named))].sort()).toEqual([...own].sort());
  });

  it.each(bundles.filter((b) => b.chunks))('$out answers from the copy with the plugin source folders gone', ({ out }) => {
    // Only the script and its chunks are needed: no lib/, no build/, no package.json around it.
    const bare = tempDir('agentstack-bare-');
    try {
      const scripts = join(bare.path, 'hooks/scripts');
      cpSync(join(install.path, 'hooks/scripts'), scripts, { recursive: true });
      const after = out.includes('after-mcp');
      const input = out.includes('pre-mcp')
        ? JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: '{"steps":[{"id":"1","action":"x.y"}]}', mcp_server_name: 'user-agentstack' })
        : after
          ? JSON.stringify({ hook_event_name: 'afterMCPExecution', tool_name: 'agentstack.execute', tool_input: '{"steps":[{"id":"1","action":"x.y"}]}', result_json: '{"isError":false}', mcp_server_name: 'user-agentstack' })
          : JSON.stringify({ hook_event_name: 'sessionStart', session_id: 's' });
      const result = spawnSync(process.execPath, [join(bare.path, out), ...(out.includes('session') ? ['--from-hook'] : [])], {
        cwd: bare.path, encoding: 'utf8', input, timeout: 20_000,
        env: { PATH: process.env.PATH, HOME: bare.path, AGENTSTACK_CURSOR_DIR: join(bare.path, 'cursor'), AGENTSTACK_DISABLE_AUTO_LOGIN: '1', NODE_PATH: '' },
      });
      expect(result.status).toBe(0);
      // The after hook's answer is always {} (Cursor discards it): what it did is the record its chunk appended.
      if (after) expect(readFileSync(join(bare.path, 'cursor/agentstack-journal.jsonl'), 'utf8')).toContain('"action":"x.y"');
      else expect(Object.keys(JSON.parse(result.stdout)).length).toBeGreaterThan(0);
    } finally {
      bare.cleanup();
    }
  });
});

describe('the pre-MCP hook bundle stays light (it runs before every MCP call)', () => {
  it('includes neither the MCP SDK, undici, oauth4webapi nor conf', async () => {
    const { build } = await import('esbuild');
    // Built from the entry as one file: every module its first stage and its chunk can reach is in the metafile.
    const entry = bundles.find((b) => b.out.endsWith('pre-mcp-cap-check.cjs'))!.entry;
    const meta = await build({ absWorkingDir: REPO_ROOT, entryPoints: [join(REPO_ROOT, entry)], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent', alias: ALIASES, define: { __PLUGIN_VERSION__: '"test"' } });
    const inputs = Object.keys(meta.metafile.inputs);
    expect(inputs.some((p) => p.startsWith('lib/commands/preMcp/'))).toBe(true);
    expect(inputs.filter((p) => /node_modules\/(@modelcontextprotocol|undici|oauth4webapi|conf)\//.test(p))).toEqual([]);
    // Nor the keychain: only sign-in, renewal (a separate process) and sign-out reach it.
    expect(inputs.filter((p) => p.startsWith('lib/platform/keychain/') || p.startsWith('lib/platform/dbus/') || p.endsWith('credentials/credentialStore.ts') || p.endsWith('credentials/storeCheck.ts'))).toEqual([]);
  });

  it('the keychain code is only in session start\'s network chunk (the renewal), never in a hook\'s first stage', () => {
    const holding = readdirSync(join(REPO_ROOT, 'hooks/scripts')).filter((name) => /secret-tool|org\.freedesktop\.secrets|AUTH EXTERNAL|KeychainNative|find-generic-password/.test(readFileSync(join(REPO_ROOT, 'hooks/scripts', name), 'utf8')));
    expect(holding.filter((name) => name.endsWith('.cjs'))).toEqual(['session-start.net.cjs']);
  });
});
