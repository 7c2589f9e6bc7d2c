/**
 * What a capability (an OAuth scope such as `projects:write`) lets its holder do, judged by its words: `read`,
 * `write` (it changes or runs something), `admin` (it administers or destroys), or `unknown` (no telling word). One
 * rule for both the sign-in's scope presets (which advertised scopes `readonly` and `builder` ask for) and the
 * per-action policy (which steps `confirm-writes` asks about and `readonly` denies): a scope the sign-in would not
 * ask for under `readonly` is exactly a capability the `readonly` policy refuses.
 */
export type CapabilityKind = 'read' | 'write' | 'admin' | 'unknown';

const READ_WORDS = new Set(['read', 'readonly', 'view', 'list', 'get']);
const CHANGE_WORDS = new Set(['write', 'execute', 'exec', 'run', 'create', 'update', 'manage']);
const ADMIN_WORDS = new Set(['admin', 'delete', 'purge', 'destroy', 'owner']);

/** The words of a scope: split at punctuation and at camel case, so `api://x/Tools.ReadWrite` reads tools, read, write. */
function words(scope: string): string[] {
  return Array.from(scope.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().matchAll(/[a-z0-9]+/g), (m) => m[0]);
}

/** The strongest word wins: an admin word over a change word over a read word (`admin:read` is admin). */
export function capabilityKind(scope: string): CapabilityKind {
  const w = words(scope);
  if (w.some((x) => ADMIN_WORDS.has(x))) return 'admin';
  if (w.some((x) => CHANGE_WORDS.has(x))) return 'write';
  if (w.some((x) => READ_WORDS.has(x))) return 'read';
  return 'unknown';
}

/** True for a capability that only reads. An action that requires no capability at all counts as a read one. */
export function isReadCapability(scope: string | null): boolean {
  return scope === null || capabilityKind(scope) === 'read';
}
