/**
 * The layout is the architecture: these rules keep it so. `lib/platform` knows nothing of AgentStack, `lib/agentstack`
 * (the domain) builds only on the platform and the schemas, `lib/commands` (one folder per script) may use both, and
 * `lib/entries` only parse arguments and call a command.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

const LIB = join(REPO_ROOT, 'lib');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(LIB);
const layerOf = (path: string) => relative(LIB, path).split('/')[0]!;

/** Relative imports of a file (static, dynamic and type-only), resolved to .ts paths under the repository. */
function importsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return found.map((spec) => resolve(dirname(path), spec).replace(/\.js$/, '.ts'));
}

/** Which layers each layer may import (itself always). */
const ALLOWED: Record<string, readonly string[]> = {
  platform: [],
  schemas: [],
  agentstack: ['platform', 'schemas'],
  commands: ['agentstack', 'platform', 'schemas'],
  entries: ['commands', 'agentstack', 'platform', 'schemas'],
};

describe('lib/ layout', () => {
  it('has only the known layers', () => {
    const layers = readdirSync(LIB).filter((name) => statSync(join(LIB, name)).isDirectory());
    expect(layers.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('imports only downwards: platform knows nothing of AgentStack, the domain nothing of the commands', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        if (!target.startsWith(LIB)) {
          violations.push(`${relative(REPO_ROOT, file)} imports ${relative(REPO_ROOT, target)} (outside lib/)`);
          continue;
        }
        const to = layerOf(target);
        if (to !== from && !ALLOWED[from]!.includes(to)) violations.push(`${relative(REPO_ROOT, file)} (${from}) imports ${relative(REPO_ROOT, target)} (${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => t.startsWith(LIB))]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'visiting') {
        cycles.push([...trail.slice(trail.indexOf(node)), node].map((p) => relative(LIB, p)).join(' -> '));
        return;
      }
      state.set(node, 'visiting');
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
      state.set(node, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps every folder to at most 15 source files and has no barrel index.ts', () => {
    const perFolder = new Map<string, number>();
    for (const file of files) perFolder.set(dirname(file), (perFolder.get(dirname(file)) ?? 0) + 1);
    const crowded = [...perFolder].filter(([, n]) => n > 15).map(([dir, n]) => `${relative(REPO_ROOT, dir)}: ${n}`);
    expect(crowded).toEqual([]);
    expect(files.filter((f) => f.endsWith('/index.ts')).map((f) => relative(REPO_ROOT, f))).toEqual([]);
  });

  it('keeps every entry thin (at most 80 lines)', () => {
    const long = files
      .filter((f) => layerOf(f) === 'entries')
      .map((f) => ({ f: relative(REPO_ROOT, f), lines: readFileSync(f, 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > 80);
    expect(long).toEqual([]);
  });

  it('cites nothing a reader of the repository cannot open (no issue numbers, no outside documents)', () => {
    const roots = ['lib', 'core', 'build', 'bench', 'demo', 'test'].map((d) => join(REPO_ROOT, d));
    const cites: string[] = [];
    for (const file of roots.flatMap((d) => sourceFiles(d))) {
      if (file === __filename || file.endsWith('layout.test.ts')) continue;
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (/REFERENCE(\.md| §)|\bissues? #?\d+\b|\.\.\/shared\//.test(line)) cites.push(`${relative(REPO_ROOT, file)}:${i + 1}`);
      });
    }
    expect(cites).toEqual([]);
  });
});

describe('one reader of the local state', () => {
  // The raw readers of the Cursor dir's state files. Views render the one model (agentstack/state/); only the hooks'
  // own I/O paths may read files themselves, for their time budgets.
  const RAW_READERS = /import\s*\{[^}]*\b(readMcpConfigFile|readRefreshFile|readSnapshot|readSnapshotIndex|readSnapshotMeta|readSnapshotFailure|readIdentity|readProjectPin|readHookRuns|isSignedOut|signedOutAt|readLockFile)\b/;
  it('at most four files under lib/commands import a raw state reader, each a hook I/O path', () => {
    const readers = files.filter((f) => layerOf(f) === 'commands' && RAW_READERS.test(readFileSync(f, 'utf8'))).map((f) => relative(LIB, f));
    expect(readers.length).toBeLessThanOrEqual(4);
    for (const path of readers) expect(path).toMatch(/^commands\/(preMcp|sessionStart)\//);
  });
});

describe('one reader of the settings', () => {
  /**
   * The settings reach the domain through the settings module alone (settings/variables.ts reads the variables, the
   * rest of lib/agentstack/settings/ works out what is in effect). Anywhere else, reading an `AGENTSTACK_` variable
   * would let what runs differ from what `config` shows. These are the only other modules that may touch one, each
   * for a variable (or a use) that is not a setting.
   */
  const EXCEPTIONS: Record<string, string> = {
    // Where the settings file itself lives: the settings file cannot set it, so it is a location, not a setting.
    'lib/agentstack/server/paths.ts': 'AGENTSTACK_CURSOR_DIR',
    // The fast gates key their cache on every AGENTSTACK_ variable, so that changing any of them recompiles the gate;
    // the values are fingerprinted, never interpreted.
    'lib/commands/sessionStart/quick.ts': "envFingerprint(…, 'AGENTSTACK_')",
    'lib/commands/preMcp/gate/gate.ts': "envFingerprint(…, 'AGENTSTACK_')",
    // The placeholder a hand-written mcp.json puts where the token goes; the plugin never reads such a variable.
    'lib/agentstack/mcpJson/credential.ts': 'AGENTSTACK_ACCESS_TOKEN',
  };
  const OWNERS = [join(LIB, 'agentstack', 'settings') + '/', join(LIB, 'platform', 'env.ts')];
  /** Code without its comments (strings are kept: a read by a quoted name counts). */
  const codeOf = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  /**
   * `env.AGENTSTACK_X`, `env['AGENTSTACK_X']`, a variable's name on its own (a constant read elsewhere), a prefix
   * fingerprint, or the platform's environment readers.
   */
  const READS = [/\.\s*AGENTSTACK_\w+/, /\[\s*['"`]AGENTSTACK_\w*/, /['"`]AGENTSTACK_[A-Z_]*['"`]/, /envFingerprint\([^)]*AGENTSTACK_/, /from\s+['"][./]*platform\/env\.js['"]/];

  it('no module outside lib/agentstack/settings/ reads an AGENTSTACK_ setting from the environment', () => {
    const readers: string[] = [];
    for (const file of files) {
      if (OWNERS.some((owner) => file === owner || file.startsWith(owner))) continue;
      const code = codeOf(readFileSync(file, 'utf8'));
      const hit = READS.map((re) => code.match(re)?.[0]).find(Boolean);
      if (hit) readers.push(`${relative(REPO_ROOT, file)}: ${hit}`);
    }
    expect(readers.filter((r) => !(r.split(':')[0]! in EXCEPTIONS))).toEqual([]);
  });

  it('lists only exceptions that are still needed', () => {
    for (const path of Object.keys(EXCEPTIONS)) {
      const code = codeOf(readFileSync(join(REPO_ROOT, path), 'utf8'));
      expect(READS.some((re) => re.test(code)), path).toBe(true);
    }
  });
});
