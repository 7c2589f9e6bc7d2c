// The runnable scripts of the plugin: each TypeScript entry becomes ONE self-contained file at a fixed path
// (Cursor installs plugins as plain files, with no npm install). Shared by the build, the tests and the audit.
/** The schema modules of the hooks' own inputs: Cursor's hook input, the plugin's files, the settings. */
export const HOOK_SCHEMAS = ['lib/schemas/hooks.ts', 'lib/schemas/state.ts', 'lib/schemas/settings.ts'];

export const BUNDLES = [
  // The hooks run at every session and before every MCP call, so they start as small CommonJS scripts (Node's
  // CommonJS path starts faster than its ES module loader) that load the rest of their code from `chunks`: sibling
  // CommonJS files, loaded through a compile cache only when the run needs them (see lib/platform/chunkLoader.ts), or
  // with `load: 'plain'` as a plain function (lib/platform/plainChunk.ts: small chunks, where a cache costs more than
  // it saves). Each chunk bundles the `modules` listed (the entry reaches them through import()) with everything they
  // import.
  // `plainSchemas`: schema modules the hook's files get as plain-data schemas instead of zod (build/plainSchemas.mjs).
  {
    entry: 'lib/entries/session-start.ts', out: 'hooks/scripts/session-start.cjs',
    chunks: [
      // Everything past a quiet start (the full run, the background steps, the command line): a plain chunk, so the
      // first stage parses neither it nor the code cache's loader.
      { out: 'hooks/scripts/session-start.full.cjs', modules: ['lib/commands/sessionStart/full.ts'], load: 'plain' },
      { out: 'hooks/scripts/session-start.main.cjs', modules: ['lib/commands/sessionStart/run.ts', 'lib/schemas/hooks.ts'] },
      { out: 'hooks/scripts/session-start.net.cjs', modules: ['lib/commands/sessionStart/net.ts'] },
      // OAuth discovery (with the MCP SDK's auth module): loaded only when a sign-in starts or a renewal has no stored
      // token endpoint, so the network chunk every session start loads stays small.
      { out: 'hooks/scripts/session-start.discovery.cjs', modules: ['lib/agentstack/auth/discovery.ts'] },
    ],
    plainSchemas: HOOK_SCHEMAS,
  },
  { entry: 'lib/entries/device-code.ts', out: 'hooks/scripts/device-code.mjs' },
  {
    entry: 'lib/entries/pre-mcp-cap-check.ts', out: 'hooks/scripts/pre-mcp-cap-check.cjs',
    chunks: [
      // Everything past the first glance at the call (its classification, the gate, the renewal's start, the heartbeat):
      // every call to another server parses only the first stage's few kilobytes.
      { out: 'hooks/scripts/pre-mcp-cap-check.check.cjs', modules: ['lib/commands/preMcp/check.ts'], load: 'plain' },
      { out: 'hooks/scripts/pre-mcp-cap-check.execute.cjs', modules: ['lib/commands/preMcp/run.ts', 'lib/commands/preMcp/journal.ts'] },
      // Past the gate's `{}`: its deny of an unknown action (suggestions, journal record), its ask, the heartbeat, the
      // full check's start (gate/past.ts). Loaded plain (the code cache's node:vm would cost it more than it saves).
      { out: 'hooks/scripts/pre-mcp-cap-check.deny.cjs', modules: ['lib/commands/preMcp/gate/deny.ts', 'lib/commands/preMcp/gate/past.ts'], load: 'plain' },
      // The command line (--help): Cursor runs the hook without arguments.
      { out: 'hooks/scripts/pre-mcp-cap-check.usage.cjs', modules: ['lib/commands/preMcp/usage.ts'], load: 'plain' },
    ],
    plainSchemas: HOOK_SCHEMAS,
  },
  // After every MCP call: the first stage ends every call that is not AgentStack's execute call; the chunks append
  // that call's record to the activity journal.
  {
    entry: 'lib/entries/after-mcp-journal.ts', out: 'hooks/scripts/after-mcp-journal.cjs',
    chunks: [
      // The record of an execute call and the command line: a plain chunk, so the first stage parses neither it nor the
      // code cache's loader.
      { out: 'hooks/scripts/after-mcp-journal.full.cjs', modules: ['lib/commands/afterMcp/full.ts'], load: 'plain' },
      { out: 'hooks/scripts/after-mcp-journal.record.cjs', modules: ['lib/commands/afterMcp/run.ts'] },
    ],
    plainSchemas: HOOK_SCHEMAS,
  },
  { entry: 'lib/entries/diagnose-local.ts', out: 'scripts/diagnose-local.mjs' },
  { entry: 'lib/entries/verify-mcp-surface-e2e.ts', out: 'scripts/verify-mcp-surface-e2e.mjs' },
  { entry: 'lib/entries/audit-cursor-plugin.ts', out: 'scripts/audit-cursor-plugin.mjs' },
  { entry: 'lib/entries/refresh-cursor-runtime.ts', out: 'scripts/refresh-cursor-runtime.mjs' },
  { entry: 'lib/entries/config.ts', out: 'scripts/config.mjs' },
  { entry: 'lib/entries/activity.ts', out: 'scripts/activity.mjs' },
  // For administrators: the organization's gate in Cursor's enterprise hooks file (install-hooks, remove-hooks, status).
  { entry: 'lib/entries/managed.ts', out: 'scripts/managed.mjs' },
];

/** Every file the build writes: each bundle, then its chunks. */
export function bundleFiles() {
  return BUNDLES.flatMap((b) => [{ entry: b.entry, out: b.out, chunk: false }, ...(b.chunks ?? []).map((c) => ({ entry: b.entry, out: c.out, chunk: true }))]);
}

export function bannerFor(entry) {
  return `// Generated by esbuild from ${entry}; do not edit (npm run build).`;
}

// Packages whose `main` is a UMD build esbuild cannot follow (it require()s its own files by computed names): bundle
// their ES module build instead. Shared by the build and the tests' own bundles.
export const ALIASES = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };
