/**
 * What `npm run mutation` mutates, one row of bench/mutation.md per module. A module is whole files, or (where a
 * file mixes a pure rule with I/O) the exported functions of its files whose names match `functions`. Ranges are
 * found in the source when Stryker starts, so they follow edits; a listed file or function that no longer exists
 * fails the run instead of silently shrinking the set.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * `tests`: the test files Stryker may run for the module's mutants: a bare name is under test/unit/, a name with a
 * folder (`integration/probe.test.ts`) under test/. Only tests that run the module in the test's own process can
 * kill a mutant (a spawned, prebuilt bundle never runs the mutated source). `io`: a module with I/O or protocol
 * logic, judged by integration tests against real servers too, with its own goal (GOAL.io in report.mjs).
 */
export const MODULES = [
  {
    name: 'mcp.json entry transforms',
    files: ['lib/agentstack/mcpJson/entry.ts'],
    tests: ['mcpConfig.test.ts', 'mcpConfig.property.test.ts', 'mcpEntry.rules.test.ts'],
  },
  { name: 'credential view and refresh decision', files: ['lib/agentstack/mcpJson/credential.ts'], tests: ['credential.test.ts', 'credential.boundaries.test.ts'] },
  {
    name: 'device polling arithmetic',
    files: ['lib/agentstack/signIn/poll.ts'],
    functions: /^(initialPollState|nextPoll)$/,
    tests: ['devicePoll.test.ts', 'pollAndBaseUrl.rules.test.ts'],
  },
  { name: 'pre-MCP decision', files: ['lib/commands/preMcp/decide.ts', 'lib/commands/preMcp/suggest.ts'], tests: ['preMcp.test.ts', 'preMcp.precedence.test.ts', 'suggest.property.test.ts'] },
  {
    name: 'per-action policy',
    files: ['lib/commands/preMcp/policy.ts', 'lib/agentstack/policy/rules.ts', 'lib/agentstack/policy/effective.ts', 'lib/agentstack/auth/capabilityKind.ts'],
    tests: ['policy.test.ts', 'scopes.test.ts'],
  },
  { name: 'base URL rules', files: ['lib/agentstack/server/baseUrl.ts'], tests: ['baseUrl.test.ts', 'pollAndBaseUrl.rules.test.ts'] },
  { name: 'scope presets', files: ['lib/agentstack/auth/scopes.ts'], tests: ['kernelBasics.test.ts', 'masking.test.ts', 'scopes.test.ts'] },
  {
    name: 'snapshot flatten, diff, approval',
    dir: 'lib/agentstack/snapshot',
    functions: /^(flattenCatalog|diffSnapshots|applySnapshotDiff|approveSnapshot)$/,
    tests: ['snapshotDiff.test.ts', 'snapshot.rules.test.ts'],
  },
  {
    name: 'masking and scrubbing',
    files: ['lib/platform/text/mask.ts', 'lib/platform/text/scrub.ts'],
    tests: ['kernelBasics.test.ts', 'scrub.test.ts', 'masking.test.ts'],
  },
  {
    name: 'lock staleness rules',
    files: ['lib/agentstack/signIn/lock.ts', 'lib/platform/fs/fileLock.ts'],
    // The predicates (isStaleDeviceLock, isProcessAlive, isBeingWritten, and any is* rule added later).
    functions: /^is[A-Z]/,
    tests: ['lockStaleness.test.ts', 'secureFile.test.ts', 'browserLock.test.ts'],
  },
  // Modules with I/O, orchestration and protocol logic. Slower to judge (real servers, real files): run them one at a
  // time with MUTATION_CONCURRENCY=1 on a shared machine.
  {
    name: 'settings precedence',
    io: true,
    files: ['lib/agentstack/settings/effective.ts'],
    tests: ['settings.test.ts', 'settings.rows.test.ts', 'managedSettings.test.ts', 'managedTrust.test.ts'],
  },
  {
    name: 'settings keys, file and managed trust',
    io: true,
    files: ['lib/agentstack/settings/keys.ts', 'lib/agentstack/settings/file.ts', 'lib/agentstack/settings/managed.ts', 'lib/agentstack/settings/store.ts'],
    tests: ['settings.test.ts', 'settings.rows.test.ts', 'settings.keys.test.ts', 'settings.file.test.ts', 'settings.store.test.ts', 'managedSettings.test.ts', 'managedTrust.test.ts', 'windowsSystemInfo.test.ts'],
  },
  {
    name: 'token renewal: due and start',
    io: true,
    files: ['lib/agentstack/renewal/due.ts', 'lib/agentstack/renewal/start.ts'],
    tests: ['renewal.test.ts'],
  },
  {
    name: 'pre-MCP gate: compile, read, deny',
    io: true,
    files: ['lib/commands/preMcp/gate/build.ts', 'lib/commands/preMcp/gate/gate.ts', 'lib/commands/preMcp/gate/deny.ts', 'lib/commands/preMcp/gate/ask.ts'],
    tests: ['gateFile.test.ts', 'preMcp.gate.test.ts', 'preMcp.test.ts', 'policy.test.ts'],
  },
  {
    name: 'HTTP caps and timeouts',
    io: true,
    files: ['lib/platform/net/http.ts'],
    tests: ['http.test.ts', 'http.streamCap.test.ts', 'http.errors.test.ts'],
  },
  {
    name: 'probe session handling',
    io: true,
    files: ['lib/agentstack/probe/session.ts'],
    functions: /^(sessionExpiryReason|connectLegacy)$/,
    tests: ['probe.test.ts', 'probe.session.test.ts', 'integration/probe.test.ts', 'integration/probe.session.test.ts'],
  },
  {
    name: 'token refresh single-flight',
    io: true,
    files: ['lib/agentstack/auth/tokenRefresh.ts'],
    tests: ['integration/token-refresh.test.ts', 'adversarial/credentialRace.test.ts'],
  },
  {
    name: 'probe checks',
    io: true,
    files: ['lib/agentstack/probe/checks.ts'],
    tests: ['probe.checks.test.ts', 'probe.test.ts', 'probe.calls.test.ts', 'probe.verify.test.ts', 'integration/probe.test.ts'],
  },
  {
    // The audit's generic layer (any Cursor plugin) and how layers and profiles are applied (rule.ts, rules.ts,
    // runRules and profileFor in auditPlugin.ts). Each rule reads files already in memory; the tests audit
    // fixture plugins written to a temporary folder. Not componentRules.ts (hooks, frontmatter, logo; about 250
    // mutants): it is its own module below, so that each run fits the shared machine.
    name: 'audit rule layers: generic profile',
    io: true,
    files: [
      'lib/commands/audit/rule.ts', 'lib/commands/audit/rules.ts', 'lib/commands/audit/auditPlugin.ts', 'lib/commands/audit/manifestRules.ts',
      'lib/commands/audit/mcpRules.ts', 'lib/commands/audit/fileRules.ts', 'lib/commands/audit/bundleRules.ts',
    ],
    tests: ['audit.rules.test.ts', 'audit.generic.test.ts', 'audit.documented.test.ts', 'audit.helpers.test.ts', 'audit.layers.test.ts'],
  },
  {
    // The generic rules over a plugin's components (hooks, the frontmatter of commands, skills, rules and agents, the
    // logo), each over files already in memory: its own test builds them in memory and calls each rule directly.
    name: 'audit rule layers: component rules',
    io: true,
    files: ['lib/commands/audit/componentRules.ts'],
    tests: ['audit.componentRules.test.ts'],
  },
  {
    // AgentStack's own layer: the rules of the agentstack profile, and the whole-plugin checks the plugin tests use.
    name: 'audit rule layers: AgentStack profile',
    io: true,
    files: ['lib/commands/audit/agentstackRules.ts', 'lib/commands/audit/pluginRules.ts'],
    tests: ['audit.rules.test.ts', 'audit.generic.test.ts', 'plugin/manifest.test.ts'],
  },
  {
    // The session-start hook's steps (normalize mcp.json, refresh, sign-in, snapshot), run in the test's own process
    // against the reference core on 127.0.0.1. Not card.ts: every session start renders the card, so each of its
    // mutants would run every in-process test; its pure tests (sessionStart.card, sessionStartSnapshot) cover it.
    name: "session start's steps",
    io: true,
    files: ['lib/commands/sessionStart/run.ts', 'lib/commands/sessionStart/refresh.ts', 'lib/commands/sessionStart/decide.ts', 'lib/commands/sessionStart/snapshot.ts'],
    tests: [
      'sessionStart.run.test.ts', 'sessionStart.runEdges.test.ts', 'sessionStart.runQuiet.test.ts', 'sessionStart.signInStep.test.ts',
      'sessionStart.snapshotStep.test.ts',
      'sessionStart.decide.test.ts', 'sessionStart.card.test.ts', 'sessionStartSnapshot.test.ts',
    ],
  },
  {
    // Loads a hook's sibling chunk through a V8 code cache: the tests load real chunks with real caches in a temporary
    // folder and run what the loader leaves for the process's exit (writing the cache) themselves.
    name: 'code cache loader',
    io: true,
    files: ['lib/platform/chunkLoader.ts'],
    tests: ['chunkLoader.test.ts', 'chunkLoader.folders.test.ts', 'chunkLoader.oddFiles.test.ts'],
  },
  {
    // Each account state's word, its story (what is true, its one next step) and the projection every view reads.
    name: 'account state and its story',
    files: ['lib/agentstack/state/account.ts', 'lib/agentstack/state/story.ts', 'lib/agentstack/state/project.ts', 'lib/agentstack/state/derive.ts'],
    tests: ['accountState.test.ts', 'story.expiring.test.ts', 'deriveState.test.ts', 'sessionStart.card.test.ts', 'fastPathText.test.ts'],
  },
  {
    // Where the refresh token is kept (file or system keychain) and the managed store check, against stand-in
    // keychains and real files.
    name: 'credential store',
    io: true,
    files: ['lib/agentstack/credentials/credentialStore.ts', 'lib/agentstack/credentials/storeCheck.ts', 'lib/agentstack/credentials/storeFacts.ts'],
    tests: ['credentialStore.test.ts', 'credentialStore.views.test.ts', 'storeCheck.test.ts', 'diagnose.gates.test.ts'],
  },
  { name: 'snapshot refusal record', io: true, files: ['lib/agentstack/snapshot/refusal.ts'], tests: ['snapshotRefusal.test.ts'] },
  {
    // The credential writers besides refresh: finishing a sign-in and signing out, against the reference core.
    name: 'sign-in finish and sign-out',
    io: true,
    files: ['lib/agentstack/signIn/finish.ts', 'lib/agentstack/signIn/signOut.ts'],
    tests: ['finishOrder.test.ts', 'integration/finish-sign-in.test.ts', 'integration/sign-out.test.ts', 'integration/sign-out.revocation.test.ts'],
  },
];

const FUNCTION_START = /^export (?:async )?function (\w+)\s*[(<]/;

/** 1-based [first, last] line ranges of the top-level exported functions of `text` whose names match. */
export function functionRanges(text, pattern) {
  const lines = text.split('\n');
  const ranges = [];
  for (let i = 0; i < lines.length; i++) {
    const match = FUNCTION_START.exec(lines[i]);
    if (!match || !pattern.test(match[1])) continue;
    let end = i;
    if (!/}\s*$/.test(lines[i]) || !lines[i].includes('{')) {
      while (end < lines.length && !/^}/.test(lines[end])) end++;
    }
    ranges.push({ name: match[1], from: i + 1, to: end + 1 });
  }
  return ranges;
}

function filesOf(module, root) {
  if (module.files) return module.files;
  return readdirSync(join(root, module.dir))
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => `${module.dir}/${f}`);
}

/** Stryker `mutate` entries of one module: `file` or `file:from-to` per function. */
export function mutateEntries(module, root) {
  const entries = [];
  for (const file of filesOf(module, root)) {
    if (!existsSync(join(root, file))) throw new Error(`mutation: ${file} (${module.name}) does not exist; update bench/mutation/modules.mjs`);
    if (!module.functions) {
      entries.push(file);
      continue;
    }
    for (const range of functionRanges(readFileSync(join(root, file), 'utf8'), module.functions)) {
      entries.push(`${file}:${range.from}-${range.to}`);
    }
  }
  if (!entries.length) throw new Error(`mutation: nothing to mutate for "${module.name}"; update bench/mutation/modules.mjs`);
  return entries;
}

/** The module a mutated file belongs to (a file appears in one module only). */
export function moduleOfFile(file, root) {
  // A module that names the file wins over one that takes a whole folder (snapshot/refusal.ts is not the folder's).
  return MODULES.find((module) => module.files?.includes(file)) ?? MODULES.find((module) => filesOf(module, root).includes(file)) ?? null;
}

/** A module's short name, for file names and MUTATION_MODULE: "pre-MCP decision" -> "pre-mcp-decision". */
export const slugOf = (module) => module.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** The modules MUTATION_MODULE selects (a slug, or part of a name); all of them when it is unset. */
export function selectedModules(filter = process.env.MUTATION_MODULE) {
  if (!filter) return MODULES;
  const wanted = filter.toLowerCase();
  const exact = MODULES.filter((m) => slugOf(m) === wanted);
  const picked = exact.length ? exact : MODULES.filter((m) => m.name.toLowerCase().includes(wanted) || slugOf(m).includes(wanted));
  if (!picked.length) throw new Error(`MUTATION_MODULE=${filter} matches no module (${MODULES.map(slugOf).join(', ')})`);
  return picked;
}

/** A module's test entry as a path from the repository root: a bare name is under test/unit/. */
const testPath = (t) => (t.includes('/') ? `test/${t}` : `test/unit/${t}`);

/**
 * The test files (paths from the repository root) for the selected modules: those each module lists, and every
 * other file under test/unit/ that imports one of its files directly (so a new test of a module joins its runs).
 */
export function testsOf(modules, root = ROOT) {
  const unit = join(root, 'test/unit');
  const all = readdirSync(unit).filter((f) => f.endsWith('.test.ts')).sort();
  const out = new Set();
  for (const module of modules) {
    for (const t of module.tests) {
      if (!existsSync(join(root, testPath(t)))) throw new Error(`mutation: test ${testPath(t)} (${module.name}) does not exist; update bench/mutation/modules.mjs`);
      out.add(testPath(t));
    }
    const imports = filesOf(module, root).map((f) => `${f.replace(/\.ts$/, '')}.js'`);
    for (const t of all) {
      const text = readFileSync(join(unit, t), 'utf8');
      if (imports.some((i) => text.includes(i))) out.add(testPath(t));
    }
  }
  return [...out];
}

/**
 * Tests with a wall-clock budget, left out of mutation runs: instrumented code on a shared machine misses budgets
 * that `npm test` holds it to, and a mutant is not "killed" by being slow. Matched against the test's own name.
 */
export const TIMED_TESTS = [
  'finds near names quickly among 5,000 actions',
  'stops at once when aborted',
  'a folder where the lock file should be: a clear io error at once, no endless retry',
];
