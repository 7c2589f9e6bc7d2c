/**
 * The hooks check their inputs with plain-data schemas read off the zod schemas at build time. Here each of those
 * schemas is run against zod itself on generated values: the same values must pass, valid values come back equal,
 * and the first problem must have the same path (the pre-MCP hook quotes it to the agent).
 */
import fc from 'fast-check';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import * as hookSchemas from '../../lib/schemas/hooks.js';
import * as stateSchemas from '../../lib/schemas/state.js';
import * as settingsSchemas from '../../lib/schemas/settings.js';
import { firstProblem, plainSchema, type PlainShape } from '../../lib/platform/plainSchema.js';
// @ts-expect-error plain ES module shared with the build
import { describeZod, plainSchemaModule } from '../../build/plainSchemas.mjs';
// @ts-expect-error plain ES module shared with the build
import { HOOK_SCHEMAS } from '../../build/bundles.mjs';
import { REPO_ROOT } from '../helpers/repo.js';

const MODULES: Record<string, Record<string, unknown>> = {
  'lib/schemas/hooks.ts': hookSchemas,
  'lib/schemas/state.ts': stateSchemas,
  'lib/schemas/settings.ts': settingsSchemas,
};

type Zod = { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: Array<{ path: PropertyKey[] }> } } };
const schemas = Object.entries(MODULES).flatMap(([file, mod]) => Object.entries(mod).map(([name, schema]) => ({ file, name, schema: schema as Zod })));

/** Values shaped like `shape`: mostly right, sometimes a wrong type or a missing key, anywhere in the tree. */
function valuesFor(shape: PlainShape, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(undefined), fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant([]), fc.constant({}),
    // Not from JSON, but the checks must still agree: dates, maps, boxed values, objects without a prototype.
    fc.anything({ maxDepth: 1, withDate: true, withMap: true, withSet: true, withBoxedValues: true, withNullPrototype: true }),
  );
  const right = ((): fc.Arbitrary<unknown> => {
    switch (shape.type) {
      case 'string': return fc.string({ maxLength: (shape.minLength ?? 0) + 3 });
      case 'number': return fc.oneof(fc.double(), fc.integer());
      case 'boolean': return fc.boolean();
      case 'unknown': return depth > 3 ? fc.jsonValue({ maxDepth: 1 }) : fc.anything({ maxDepth: 2 });
      case 'literal': return fc.constantFrom(...shape.values);
      case 'optional': return fc.oneof(fc.constant(undefined), valuesFor(shape.inner, depth));
      case 'nullable': return fc.oneof(fc.constant(null), valuesFor(shape.inner, depth));
      case 'array': return fc.array(valuesFor(shape.element, depth + 1), { maxLength: 4 });
      case 'union': return fc.oneof(...shape.options.map((o) => valuesFor(o, depth + 1)));
      case 'record': return fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      case 'object': {
        const model = Object.fromEntries(Object.entries(shape.shape).map(([k, v]) => [k, valuesFor(v, depth + 1)]));
        // Any key may be missing; extra keys (including ones named like Object.prototype's) may appear.
        return fc.tuple(
          fc.record(model, { requiredKeys: [] }),
          fc.dictionary(fc.constantFrom('extra', 'constructor', 'toString', 'x'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
        ).map(([known, extra]) => ({ ...extra, ...known }));
      }
    }
  })();
  return fc.oneof({ weight: 6, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value as object).every(isJson);
}

describe('plain schemas agree with zod', () => {
  it('covers every schema of the hook schema modules, and only those are swapped in the hooks', () => {
    expect(Object.keys(MODULES).sort()).toEqual([...HOOK_SCHEMAS].sort());
    expect(schemas.length).toBeGreaterThan(8);
  });

  it.each(schemas.map((s) => [`${s.file}: ${s.name}`, s] as const))('%s: same verdict, same value, same first path (property)', (_label, { file, name, schema }) => {
    const shape = describeZod(schema, `${file}: ${name}`) as PlainShape;
    const plain = plainSchema(shape);
    fc.assert(fc.property(fc.oneof({ weight: 8, arbitrary: valuesFor(shape) }, { weight: 1, arbitrary: fc.anything() }), (value) => {
      const expected = schema.safeParse(value);
      const actual = plain.safeParse(value);
      expect(actual.success).toBe(expected.success);
      // Valid input comes back as it is (zod copies it): equal for anything JSON.parse can produce, which is all a hook reads.
      if (actual.success) {
        if (isJson(value)) expect(actual.data).toEqual(expected.data);
      } else expect((actual as { error: { issues: Array<{ path: PropertyKey[] }> } }).error.issues[0]!.path).toEqual(expected.error!.issues[0]!.path);
    }), { numRuns: 400 });
  });

  it('the generated module exports every schema under its own name', async () => {
    const source: string = await plainSchemaModule(REPO_ROOT, 'lib/schemas/hooks.ts');
    for (const name of Object.keys(hookSchemas)) expect(source).toMatch(new RegExp(`^export const ${name} = `, 'm'));
    expect(source).not.toMatch(/zod/);
  });
});

describe('describeZod refuses what it cannot describe exactly', () => {
  it.each([
    ['a refinement', z.string().check(z.regex(/x/))],
    ['a non-loose object', z.object({ a: z.string() })],
    ['a catch', z.catch(z.string(), 'x')],
    ['an enum', z.enum(['a', 'b'])],
    ['a record of strings', z.record(z.string(), z.string())],
    ['a number with a check', z.number().check(z.minimum(1))],
  ])('%s', (_label, schema) => {
    expect(() => describeZod(schema, 'it')).toThrow(/cannot be described/);
  });
});

describe('firstProblem', () => {
  it('names where and what', () => {
    const shape: PlainShape = { type: 'object', shape: { steps: { type: 'array', element: { type: 'object', shape: { action: { type: 'string', minLength: 1 } } } } } };
    expect(firstProblem(shape, { steps: [{ action: 'a' }, { action: '' }] })).toEqual({ path: ['steps', 1, 'action'], message: 'expected at least 1 characters' });
    expect(firstProblem(shape, { steps: [{}] })).toEqual({ path: ['steps', 0, 'action'], message: 'required' });
    expect(firstProblem(shape, [])).toEqual({ path: [], message: 'expected object' });
    expect(firstProblem(shape, { steps: [] })).toBeNull();
  });
});
