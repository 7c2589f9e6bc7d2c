/**
 * A Node built-in module loaded on first use. Importing one at the top of a module costs every hook run its
 * start-up (node:crypto ~5 ms, node:child_process ~5 ms) even when the run never needs it.
 * `process.getBuiltinModule` (Node >= 20.16) needs no module loader; before it, the bundle's own `require` (every
 * bundle has one) serves it.
 */
export function builtin<T>(id: 'node:crypto' | 'node:child_process' | 'node:os' | 'node:v8' | 'node:net'): T {
  const getBuiltin = (process as { getBuiltinModule?: (name: string) => unknown }).getBuiltinModule;
  return (getBuiltin ? getBuiltin(id) : require(id)) as T;
}
