// Builds every bundle in BUNDLES reproducibly: same sources and lockfile, same bytes.
// Usage: node build/build.mjs [--outdir DIR]   (DIR defaults to the repository root)
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ALIASES, BUNDLES, bannerFor } from './bundles.mjs';
import { plainSchemasPlugin } from './plainSchemas.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outRoot = values.outdir ? resolve(values.outdir) : root;
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// Bundled CommonJS dependencies call require() for Node built-ins; an ES module has none, so give it one.
const requireShim = 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);';

const common = {
  absWorkingDir: root, alias: ALIASES, bundle: true, platform: 'node', target: 'node20', minify: true, legalComments: 'eof', charset: 'utf8', logLevel: 'warning',
  // The compile cache folder is per plugin version.
  define: { __PLUGIN_VERSION__: JSON.stringify(version) },
};

/**
 * A chunk: the listed modules bundled together as one CommonJS file, exporting each module's namespace as m0, m1, ...
 * It must hold no state the script's first stage shares: modules both use are copied into each.
 */
function chunkBuild(entry, chunk, siblings, plainSchemas) {
  const contents = [
    ...chunk.modules.map((m, i) => `import * as m${i} from ${JSON.stringify(join(root, m))};`),
    `export { ${chunk.modules.map((_, i) => `m${i}`).join(', ')} };`,
  ].join('\n');
  return build({
    ...common, format: 'cjs', outfile: join(outRoot, chunk.out),
    stdin: { contents, resolveDir: root, sourcefile: `${chunk.out}.entry.js`, loader: 'js' },
    banner: { js: bannerFor(entry) },
    // A chunk may load its siblings the way the first stage does (the check stage loads the deny and execute chunks).
    plugins: [chunkPlugin(siblings.filter((c) => c !== chunk)), plainSchemasPlugin(root, plainSchemas)],
  });
}

/** The names a module exports (types aside), read by esbuild once per build. */
const exportNames = new Map();
function exportsOf(module) {
  if (!exportNames.has(module)) {
    exportNames.set(module, build({ entryPoints: [module], bundle: false, write: false, metafile: true, format: 'esm', platform: 'node', outdir: root, logLevel: 'silent' })
      .then((r) => Object.values(r.metafile.outputs).flatMap((o) => o.exports ?? [])));
  }
  return exportNames.get(module);
}

/**
 * In the first stage, import() of a chunk's module becomes a load of that chunk file, next to the script. The stub is
 * an ES module that exports the module's own names from the loaded chunk: esbuild then gives import() that namespace
 * as it is, where a CommonJS stub would be wrapped for ES module interop at run time (copying every export behind new
 * getters, ~0.3M instructions of each AgentStack call's hook run).
 */
function chunkPlugin(chunks = []) {
  const where = new Map(chunks.flatMap((c) => c.modules.map((m, i) => [join(root, m), { file: basename(c.out), index: i, load: c.load }])));
  const loader = join(root, 'lib/platform/chunkLoader.ts');
  const plainLoader = join(root, 'lib/platform/plainChunk.ts');
  return {
    name: 'chunks',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.chunkResolving) return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { chunkResolving: true } });
        const hit = where.get(resolved.path);
        return hit ? { path: `${hit.file}#m${hit.index}`, namespace: 'chunk', pluginData: { load: hit.load, module: resolved.path } } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'chunk' }, async (args) => {
        const [file, member] = args.path.split('#');
        const names = await exportsOf(args.pluginData.module);
        const path = `join(__dirname, ${JSON.stringify(file)})`;
        // `load: 'plain'`: compiled as a plain function, without Node's module loader (lib/platform/plainChunk.ts).
        const [load, from, call] = args.pluginData.load === 'plain'
          ? ['loadPlainChunk', plainLoader, `loadPlainChunk(${path}, __dirname, require)`]
          : ['loadChunk', loader, `loadChunk(${path})`];
        const contents = [
          `import { ${load} } from ${JSON.stringify(from)};`,
          'import { join } from "node:path";',
          `const chunk = ${call}.${member};`,
          `export const { ${names.join(', ')} } = chunk;`,
        ].join('\n');
        return { contents, loader: 'js', resolveDir: root };
      });
    },
  };
}

await Promise.all(
  BUNDLES.flatMap(({ entry, out, chunks, plainSchemas }) => [
    build({
      ...common,
      entryPoints: [join(root, entry)],
      outfile: join(outRoot, out),
      format: chunks ? 'cjs' : 'esm',
      banner: { js: chunks ? bannerFor(entry) : `${bannerFor(entry)}\n${requireShim}` },
      plugins: [chunkPlugin(chunks), plainSchemasPlugin(root, plainSchemas)],
    }),
    ...(chunks ?? []).map((c) => chunkBuild(entry, c, chunks, plainSchemas)),
  ]),
);
