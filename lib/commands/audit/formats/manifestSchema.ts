/**
 * Cursor's published plugin manifest schema, field by field: what its validator rejects. Pure; each problem names
 * the field and the form expected. Knows nothing of AgentStack.
 */
import { isObject } from '../../../platform/text/isObject.js';

/** The keys Cursor's manifest schema accepts; it rejects any other (additionalProperties: false). */
export const MANIFEST_KEYS = [
  'name', 'displayName', 'description', 'version', 'author', 'publisher', 'homepage', 'repository', 'license', 'logo',
  'keywords', 'category', 'tags', 'minClientVersions', 'commands', 'agents', 'skills', 'rules', 'hooks', 'variables', 'mcpServers',
] as const;

/** Lowercase alphanumerics with inner dots and hyphens: the schema's pattern for plugin and skill names. */
export const NAME_PATTERN = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
/** The component fields that hold paths or globs relative to the plugin root. */
export const PATH_FIELDS = ['commands', 'agents', 'skills', 'rules'] as const;

/** `advice`: the docs ask for it but Cursor's validator accepts the manifest anyway. */
export type FieldProblem = { field: string; message: string; advice?: true };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The schema's strict semantic version: `X.Y.Z` with an optional pre-release, no leading zeros, no build part. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$/;
const show = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v)?.slice(0, 60) ?? String(v));
const isStrings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** An absolute URI as JSON Schema's "uri" format reads it: a scheme, then something. */
export function isUri(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return false;
  try { new URL(value); return true; } catch { return false; }
}

type FieldCheck = (value: unknown) => string | null;
const string: FieldCheck = (v) => (typeof v === 'string' ? null : 'must be a string');
const strings: FieldCheck = (v) => (isStrings(v) ? null : 'must be an array of strings');
const uri: FieldCheck = (v) => (isUri(v) ? null : 'must be an absolute URL (https://…)');
const pathOrPaths: FieldCheck = (v) => (typeof v === 'string' || isStrings(v) ? null : 'must be a path or an array of paths');

function author(v: unknown): string | null {
  if (!isObject(v)) return 'must be an object {"name": "…", "email": "…"}';
  const extra = Object.keys(v).filter((k) => k !== 'name' && k !== 'email');
  if (extra.length) return `may hold only "name" and "email", not ${extra.map((k) => `author.${k}`).join(', ')}`;
  if (typeof v.name !== 'string' || !v.name) return '"name" must be a non-empty string';
  if (v.email !== undefined && (typeof v.email !== 'string' || !EMAIL.test(v.email))) return `"email" ${show(v.email)} must be an email address`;
  return null;
}

/** `minClientVersions`, on a manifest or a marketplace entry: at least one client, each a strict semantic version. */
export function minClientVersionsProblem(v: unknown): string | null {
  if (!isObject(v) || !Object.keys(v).length) return 'must be an object of client name to version ({"cursor": "3.13.0"})';
  const bad = Object.entries(v).filter(([, ver]) => typeof ver !== 'string' || !SEMVER.test(ver)).map(([k]) => `"${k}"`);
  return bad.length ? `${bad.join(', ')} must be a version "X.Y.Z" ("3.13.0")` : null;
}

/**
 * `variables`: a JSON Schema of the person's settings, `{"type": "object", "properties": {NAME: {"type": …}}}`; the
 * validator requires `"type": "object"`, the docs give each entry a `type` (advice: the validator does not look).
 */
function variables(v: unknown): FieldProblem[] {
  const at = (message: string, advice?: true): FieldProblem[] => [{ field: 'variables', message: `"variables" ${message}`, ...(advice ? { advice } : {}) }];
  if (!isObject(v) || v.type !== 'object') return at('must be {"type": "object", "properties": {"NAME": {"type": "string"}}}');
  if (v.properties !== undefined && !isObject(v.properties)) return at('"properties" must be an object');
  if (v.required !== undefined && (!isStrings(v.required) || new Set(v.required as string[]).size !== (v.required as string[]).length)) {
    return at('"required" must be an array of distinct variable names');
  }
  const untyped = Object.entries(v.properties ?? {}).filter(([, e]) => !isObject(e) || typeof e.type !== 'string').map(([k]) => `"${k}"`);
  return untyped.length ? at(`entry ${untyped.join(', ')} has no "type" (the docs give each variable one)`, true) : [];
}

const mcpServers: FieldCheck = (v) => {
  const one = (x: unknown) => typeof x === 'string' || isObject(x);
  return one(v) || (Array.isArray(v) && v.every(one)) ? null : 'must be a path, an object of servers, or an array of either';
};

const FIELD_CHECKS: Record<Exclude<(typeof MANIFEST_KEYS)[number], 'name' | 'variables'>, FieldCheck> = {
  displayName: string,
  description: string,
  version: string,
  author,
  publisher: (v) => (typeof v === 'string' && v.length > 0 ? null : 'must be a non-empty string'),
  homepage: uri,
  repository: uri,
  license: string,
  logo: string,
  keywords: strings,
  category: string,
  tags: strings,
  minClientVersions: minClientVersionsProblem,
  commands: pathOrPaths,
  agents: pathOrPaths,
  skills: pathOrPaths,
  rules: pathOrPaths,
  hooks: (v) => (typeof v === 'string' || isObject(v) ? null : 'must be a path to hooks.json or an inline hooks object'),
  mcpServers,
};

/** Keys the schema does not know. */
export function unknownKeys(manifest: Record<string, unknown>): string[] {
  return Object.keys(manifest).filter((k) => !(MANIFEST_KEYS as readonly string[]).includes(k));
}

export function nameProblem(manifest: Record<string, unknown>): string | null {
  const { name } = manifest;
  if (name === undefined) return '"name" is required';
  return typeof name === 'string' && NAME_PATTERN.test(name) ? null : `"name" ${show(name)} must be lowercase kebab-case: letters, digits, "-" and "." (like "my-plugin")`;
}

/** Every known field present, judged by its form (name is judged by nameProblem); `advice` marks what the validator accepts. */
export function fieldProblems(manifest: Record<string, unknown>): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const [field, check] of Object.entries(FIELD_CHECKS)) {
    if (manifest[field] === undefined) continue;
    const problem = check(manifest[field]);
    if (problem) out.push({ field, message: `"${field}" ${problem}` });
  }
  if (manifest.variables !== undefined) out.push(...variables(manifest.variables));
  return out;
}
