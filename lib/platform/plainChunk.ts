/**
 * Loads a hook's sibling CommonJS chunk without Node's module loader: the file is read and compiled by V8 as a function
 * of CommonJS's five parameters, then run once. For small chunks on a hook's hot path: require() of the same file
 * costs ~0.4 ms more in a fresh process (resolving the real path folder by folder, wrapping it for the ES module
 * loader), none of which a file of our own, at a fixed path next to its script, needs. The chunk gets the caller's
 * `require` (it asks only for Node's built-ins and for further chunks by absolute path).
 *
 * Where code generation from strings is disallowed (`--disallow-code-generation-from-strings`), require() loads it.
 */
import { readFileSync } from 'node:fs';

const PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'] as const;

const loaded = new Map<string, unknown>();

export function loadPlainChunk(path: string, dirname: string, requireFn: NodeJS.Require): unknown {
  if (loaded.has(path)) return loaded.get(path);
  const code = readFileSync(path, 'utf8');
  let run: (...args: unknown[]) => void;
  try {
    // The URL comment names the file in stack traces.
    run = new Function(...PARAMETERS, `${code}\n//# sourceURL=${path}`) as typeof run;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    const exports: unknown = requireFn(path);
    loaded.set(path, exports);
    return exports;
  }
  const module = { exports: {} as unknown };
  run(module.exports, requireFn, module, path, dirname);
  loaded.set(path, module.exports);
  return module.exports;
}
