/**
 * A schema as plain data, and the check that runs it. The hooks start a process for every call, and building zod
 * schemas at start-up costs them ~5 ms (each schema object is constructed, then compiled on its first parse); the
 * build turns the zod schemas the hooks use into these descriptions instead (build/plainSchemas.mjs), so there is
 * still one definition of each shape. The checks follow zod's for the kinds below (a test compares the two on
 * generated values): the same inputs pass, and the first problem has the same path.
 */
import { isObject } from './text/isObject.js';

export type PlainShape =
  | { type: 'string'; minLength?: number; maxLength?: number }
  | { type: 'number' }
  | { type: 'boolean' }
  | { type: 'unknown' }
  | { type: 'literal'; values: Array<string | number | boolean | null> }
  | { type: 'optional'; inner: PlainShape }
  | { type: 'nullable'; inner: PlainShape }
  | { type: 'array'; element: PlainShape }
  | { type: 'union'; options: PlainShape[] }
  /** Keys are strings, values unchecked: the only record the plugin's schemas use. */
  | { type: 'record' }
  /** A loose object: the listed keys are checked, others are kept as they are. */
  | { type: 'object'; shape: Record<string, PlainShape> };

export interface PlainIssue {
  path: PropertyKey[];
  message: string;
}

export type PlainParseResult<T> = { success: true; data: T } | { success: false; error: { issues: PlainIssue[] } };

export interface PlainSchema<T = unknown> {
  safeParse(value: unknown): PlainParseResult<T>;
}

/** zod's test for a record: an object whose constructor, if any, is an ordinary one (not a Map, a Date, a class). */
function isPlainObject(v: unknown): boolean {
  if (!isObject(v)) return false;
  const ctor = (v as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto = (ctor as { prototype?: unknown }).prototype;
  return isObject(proto) && Object.prototype.hasOwnProperty.call(proto, 'isPrototypeOf');
}

/** Whether a key may be left out: an optional schema, also under a nullable. */
function mayBeAbsent(shape: PlainShape): boolean {
  return shape.type === 'optional' || (shape.type === 'nullable' && mayBeAbsent(shape.inner));
}

/** The first problem with `value` (its path and what was expected), or null when it fits. */
export function firstProblem(shape: PlainShape, value: unknown, path: PropertyKey[] = []): PlainIssue | null {
  const expected = (what: string): PlainIssue => ({ path, message: `expected ${what}` });
  switch (shape.type) {
    case 'unknown':
      return null;
    case 'string':
      if (typeof value !== 'string') return expected('string');
      if (shape.minLength !== undefined && value.length < shape.minLength) return expected(`at least ${shape.minLength} characters`);
      if (shape.maxLength !== undefined && value.length > shape.maxLength) return expected(`at most ${shape.maxLength} characters`);
      return null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : expected('number');
    case 'boolean':
      return typeof value === 'boolean' ? null : expected('boolean');
    case 'literal':
      return shape.values.includes(value as string) ? null : expected(shape.values.map((v) => JSON.stringify(v)).join(' or '));
    case 'optional':
      return value === undefined ? null : firstProblem(shape.inner, value, path);
    case 'nullable':
      return value === null ? null : firstProblem(shape.inner, value, path);
    case 'array':
      if (!Array.isArray(value)) return expected('array');
      for (let i = 0; i < value.length; i++) {
        const problem = firstProblem(shape.element, value[i], [...path, i]);
        if (problem) return problem;
      }
      return null;
    case 'union':
      return shape.options.some((option) => firstProblem(option, value) === null) ? null : expected('one of the allowed forms');
    case 'record':
      return isPlainObject(value) ? null : expected('object');
    case 'object': {
      if (!isObject(value)) return expected('object');
      for (const key of Object.keys(shape.shape)) {
        const inner = shape.shape[key]!;
        if (!(key in value)) {
          if (mayBeAbsent(inner)) continue;
          return { path: [...path, key], message: 'required' };
        }
        const problem = firstProblem(inner, value[key], [...path, key]);
        if (problem) return problem;
      }
      return null;
    }
  }
}

/** A schema with zod's `safeParse` over a plain description; valid input is returned as it is (nothing is copied). */
export function plainSchema<T = unknown>(shape: PlainShape): PlainSchema<T> {
  return {
    safeParse(value) {
      const problem = firstProblem(shape, value);
      return problem ? { success: false, error: { issues: [problem] } } : { success: true, data: value as T };
    },
  };
}
