// Builds every bundle in BUNDLES reproducibly: same sources and lockfile, same bytes.
// Usage: node build/build.mjs [--outdir DIR]   (DIR defaults to the repository root)
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUNDLES, bannerFor } from './bundles.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outRoot = values.outdir ? resolve(values.outdir) : root;

// Bundled CommonJS dependencies call require() for Node built-ins; an ES module has none, so give it one.
const requireShim = 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);';

await Promise.all(
  BUNDLES.map(({ entry, out }) =>
    build({
      absWorkingDir: root,
      entryPoints: [join(root, entry)],
      outfile: join(outRoot, out),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      minify: true,
      legalComments: 'eof',
      charset: 'utf8',
      banner: { js: `${bannerFor(entry)}\n${requireShim}` },
      logLevel: 'warning',
    }),
  ),
);
