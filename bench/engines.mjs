// The Node versions the hooks are measured and tested on besides the machine's own: official Node binaries from the
// npm registry's `node-<os>-<arch>` packages, pinned, unpacked on demand into .node-cache/ (git-ignored; never the
// project's node_modules). Usage: node bench/engines.mjs install   (prints nothing when all are there)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ENGINE_CACHE = join(ROOT, '.node-cache');
/** Pinned: a new patch release is a deliberate change here. */
export const ENGINE_VERSIONS = ['22.23.5', '24.22.3'];

const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const binary = (version) => join(ENGINE_CACHE, version, process.platform === 'win32' ? 'node.exe' : join('bin', 'node'));

/** The pinned engines and where their binary is (`path` null when not installed). */
export function engines() {
  return ENGINE_VERSIONS.map((version) => ({ version, major: Number(version.split('.')[0]), path: existsSync(binary(version)) ? binary(version) : null }));
}

/** Installs the missing engines with `npm pack` (the registry's integrity check) and keeps only the binary. */
export function installEngines() {
  for (const { version, path } of engines()) {
    if (path) continue;
    mkdirSync(ENGINE_CACHE, { recursive: true });
    const tmp = mkdtempSync(join(ENGINE_CACHE, 'tmp-'));
    try {
      execFileSync('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', tmp], { stdio: ['ignore', 'ignore', 'pipe'], shell: process.platform === 'win32' });
      const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
      if (!tgz) throw new Error(`npm pack ${pkg}@${version} produced no tarball`);
      const member = process.platform === 'win32' ? 'package/node.exe' : 'package/bin/node';
      execFileSync('tar', ['xzf', join(tmp, tgz), '-C', tmp, member], { stdio: ['ignore', 'ignore', 'pipe'] });
      const got = execFileSync(join(tmp, member), ['-v'], { encoding: 'utf8' }).trim();
      if (got !== `v${version}`) throw new Error(`${pkg}@${version} runs as ${got}`);
      mkdirSync(dirname(binary(version)), { recursive: true });
      renameSync(join(tmp, member), binary(version));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return engines();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== 'install') {
    process.stderr.write('Usage: node bench/engines.mjs install\n');
    process.exit(2);
  }
  installEngines();
}
