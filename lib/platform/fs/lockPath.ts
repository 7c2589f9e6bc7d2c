/** The cross-process lock file (fileLock.ts) that guards the writes of `path`: `mcp.json.lock`, `agentstack-refresh.lock`. */
/* @__NO_SIDE_EFFECTS__ */ // lets esbuild drop a constant table built with it from bundles that do not use it
export function lockPathFor(path: string): string {
  return `${path}.lock`;
}
