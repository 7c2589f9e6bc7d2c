// The hooks' schemas as plain data. The schema modules (zod) stay the one definition; for the hook bundles the build
// replaces each listed module with one that exports the same names built by lib/platform/plainSchema.ts from a
// description read off the zod schema here, so the hooks never construct zod objects at start-up. A schema this
// cannot describe exactly (a transform, a default, a refinement, another check) fails the build.
import { build } from 'esbuild';
import { join } from 'node:path';

/** The plain description of one zod (v4) schema. */
export function describeZod(schema, where = 'schema') {
  const def = schema?._zod?.def;
  if (!def) throw new Error(`${where}: not a zod schema`);
  const checks = def.checks ?? [];
  const unsupported = (why) => new Error(`${where}: ${why} cannot be described as a plain schema`);
  if (def.type !== 'string' && checks.length) throw unsupported(`a ${def.type} with checks`);
  switch (def.type) {
    case 'string': {
      const out = { type: 'string' };
      for (const check of checks) {
        const c = check._zod.def;
        if (c.check === 'min_length') out.minLength = Math.max(out.minLength ?? 0, c.minimum);
        else if (c.check === 'max_length') out.maxLength = Math.min(out.maxLength ?? Infinity, c.maximum);
        else throw unsupported(`the check ${c.check}`);
      }
      return out;
    }
    case 'number':
    case 'boolean':
    case 'unknown':
      return { type: def.type };
    case 'literal':
      return { type: 'literal', values: [...def.values] };
    case 'optional':
    case 'nullable':
      return { type: def.type, inner: describeZod(def.innerType, where) };
    case 'array':
      return { type: 'array', element: describeZod(def.element, `${where}[]`) };
    case 'union':
      if (def.inclusive === false) throw unsupported('an exclusive union');
      return { type: 'union', options: def.options.map((o, i) => describeZod(o, `${where}|${i}`)) };
    case 'record':
      if (describeZod(def.keyType, where).type !== 'string' || describeZod(def.valueType, where).type !== 'unknown' || def.keyType._zod.def.checks?.length) {
        throw unsupported('a record other than string keys to unknown values');
      }
      return { type: 'record' };
    case 'object': {
      if (def.catchall?._zod?.def.type !== 'unknown') throw unsupported('an object that is not loose');
      const shape = {};
      for (const key of Object.keys(def.shape)) shape[key] = describeZod(def.shape[key], `${where}.${key}`);
      return { type: 'object', shape };
    }
    default:
      throw unsupported(`the type ${def.type}`);
  }
}

/** Loads a TypeScript schema module (bundled with its zod) and returns its exports. */
export async function loadSchemaModule(root, file) {
  const out = await build({ absWorkingDir: root, entryPoints: [join(root, file)], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent' });
  const code = out.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

/** The source of the module that replaces `file` in a hook bundle: every export a plain schema, under its name. */
export async function plainSchemaModule(root, file) {
  const exports = await loadSchemaModule(root, file);
  const lines = [`import { plainSchema } from ${JSON.stringify(join(root, 'lib/platform/plainSchema.ts'))};`];
  for (const name of Object.keys(exports).sort()) {
    if (!exports[name]?._zod) throw new Error(`${file}: the export ${name} is not a zod schema (a schema module exports schemas only)`);
    lines.push(`export const ${name} = /* @__PURE__ */ plainSchema(${JSON.stringify(describeZod(exports[name], `${file}: ${name}`))});`);
  }
  return lines.join('\n');
}

/** An esbuild plugin that bundles `files` (paths from the root) as plain schema modules. */
export function plainSchemasPlugin(root, files = []) {
  const wanted = new Set(files.map((f) => join(root, f)));
  const cache = new Map();
  return {
    name: 'plain-schemas',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!wanted.has(args.path)) return undefined;
        const file = args.path.slice(root.length + 1);
        if (!cache.has(file)) cache.set(file, plainSchemaModule(root, file));
        return { contents: await cache.get(file), loader: 'js', resolveDir: root };
      });
    },
  };
}
