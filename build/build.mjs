// Builds every bundle in BUNDLES reproducibly: same sources and lockfile, same bytes.
// Usage: node build/build.mjs [--outdir DIR]   (DIR defaults to the repository root)
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ALIASES, BUNDLES, bannerFor } from './bundles.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outRoot = values.outdir ? resolve(values.outdir) : root;

// Bundled CommonJS dependencies call require() for Node built-ins; an ES module has none, so give it one.
const requireShim = 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);';

const common = { absWorkingDir: root, alias: ALIASES, bundle: true, platform: 'node', target: 'node20', minify: true, legalComments: 'eof', charset: 'utf8', logLevel: 'warning' };

/**
 * A deferred module stays inside the one bundle, but as a string: V8 compiles a module's whole text before running
 * it, and a string literal costs only a scan. Its code is bundled on its own as CommonJS (strict, like the ES module it
 * replaces) and turned into a function the first time the entry's import() reaches it. It must hold no state the
 * rest of the bundle shares: modules both sides use are copied into it.
 */
async function deferredModule(path) {
  const names = await build({ ...common, entryPoints: [path], format: 'esm', write: false, metafile: true, minify: false });
  const exportNames = Object.values(names.metafile.outputs)[0].exports;
  const cjs = await build({ ...common, entryPoints: [path], format: 'cjs', write: false });
  const text = cjs.outputFiles[0].text;
  const source = text.startsWith('"use strict";') ? text : `"use strict";${text}`;
  return [
    'import { createRequire } from "node:module";',
    'const m = { exports: {} };',
    `new Function("require", "module", "exports", ${JSON.stringify(source)})(createRequire(import.meta.url), m, m.exports);`,
    `export const { ${exportNames.join(', ')} } = m.exports;`,
  ].join('\n');
}

function deferPlugin(deferred = []) {
  const paths = new Set(deferred.map((p) => join(root, p)));
  return {
    name: 'defer-compile',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.deferResolving) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { deferResolving: true } });
        return paths.has(resolved.path) ? { path: resolved.path, namespace: 'deferred' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'deferred' }, async (args) => ({ contents: await deferredModule(args.path), loader: 'js', resolveDir: root }));
    },
  };
}

await Promise.all(
  BUNDLES.map(({ entry, out, deferred }) =>
    build({
      absWorkingDir: root,
      entryPoints: [join(root, entry)],
      outfile: join(outRoot, out),
      alias: ALIASES,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      minify: true,
      legalComments: 'eof',
      charset: 'utf8',
      banner: { js: `${bannerFor(entry)}\n${requireShim}` },
      logLevel: 'warning',
      plugins: [deferPlugin(deferred)],
    }),
  ),
);
