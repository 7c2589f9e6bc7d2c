#!/usr/bin/env node
/**
 * `npm test`: every part runs and reports, one after the other, and the command fails if any part failed (a failure
 * in one never hides the others' results):
 *
 *   typecheck  tsc --noEmit
 *   vitest     the main suite, where the machine's /etc/agentstack and /etc/cursor cannot be seen
 *              (test/withoutMachineEtc.mjs)
 *   nobody     as root only: the files whose blocks need a user other than root, again as `nobody`
 *   managed    test/managed (test/managed/isolated.mjs: its own copy of /etc, which it writes), without the
 *              machine's managed folders too
 *
 * `node test/run-all.mjs [part…] [vitest arguments]` runs the parts named (all by default); other arguments go to
 * the main vitest run (`npm test -- test/unit/http.test.ts`, `node test/run-all.mjs vitest -- -t name`). It ends with
 * one line per part and checks that the machine's real /etc/agentstack and /etc/cursor are as they were before.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hideMachineEtc, machineEtcFingerprint, MACHINE_ETC } from './withoutMachineEtc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const NODE = process.execPath;
const CI = !!process.env.CI;
const AS_ROOT = process.getuid?.() === 0;
/** Files with blocks that run only as a user other than root (each says so with `NEEDS_NON_ROOT`). */
export const NON_ROOT_FILES = ['test/unit/chunkLoader.folders.test.ts'];

/** A part's outcome: passed, failed (why), or skipped (why). */
const outcome = (name, run) => {
  if (run.unavailable) return { name, state: 'failed', why: run.unavailable };
  if (run.error) return { name, state: 'failed', why: `could not be started (${run.error.code})` };
  return run.status === 0 ? { name, state: 'passed' } : { name, state: 'failed', why: `exit ${run.status ?? run.signal}` };
};

/** Runs `command` where the machine's managed folders cannot be seen; where that cannot be done, as it is, saying so. */
function withoutMachineEtc(name, command, args, options = {}) {
  const run = hideMachineEtc(command, args, { cwd: ROOT, ...options });
  if (!run.unavailable) return outcome(name, run);
  const visible = MACHINE_ETC.filter((path) => existsSync(path));
  if (visible.length) return { name, state: 'failed', why: `${visible.join(' and ')} would be seen and ${run.unavailable}` };
  process.stderr.write(`\n${name}: ${run.unavailable}; running where nothing is in ${MACHINE_ETC.join(' or ')} yet (the suite fails if something appears)\n`);
  const direct = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  return { ...outcome(name, direct), note: 'the machine\'s /etc was not hidden' };
}

function typecheck() {
  return outcome('typecheck', spawnSync('npm', ['run', '--silent', 'typecheck'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' }));
}

function vitest(args) {
  return withoutMachineEtc('vitest', NODE, [VITEST, 'run', ...args]);
}

/** The non-root files as `nobody`, with the JSON report in CI (copied to test-output/vitest-nobody.json). */
function asNobody() {
  const name = 'nobody';
  if (!AS_ROOT) return { name, state: 'skipped', why: 'the suite already runs as a user other than root' };
  if (process.platform !== 'linux') return { name, state: 'skipped', why: `switching to nobody is done with setpriv, on Linux (this is ${process.platform})` };
  const ids = ['-u', '-g'].map((flag) => spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout?.trim());
  if (!ids.every((id) => /^\d+$/.test(id ?? ''))) return { name, state: 'failed', why: 'this machine has no user nobody' };
  const [uid, gid] = ids.map(Number);
  const as = ['--reuid', String(uid), '--regid', String(gid), '--clear-groups', '--'];
  if (spawnSync('setpriv', [...as, 'true']).status !== 0) return { name, state: CI ? 'failed' : 'skipped', why: 'setpriv is missing or cannot switch to nobody' };
  const out = mkdtempSync(join(tmpdir(), 'agentstack-nobody-'));
  chownSync(out, uid, gid);
  // The config is loaded by vite's module runner: the default loader writes a bundled copy beside the config file, in
  // a folder nobody may not write.
  const env = { ...process.env, HOME: out, TMPDIR: out, AGENTSTACK_VITEST_JSON: join(out, 'vitest.json') };
  const vitestAs = (root) => [...as, NODE, join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--configLoader', 'runner', ...NON_ROOT_FILES];
  // A checkout under a folder nobody cannot enter (a clone in /root, mode 0700) is reached through a bind mount of it
  // at a folder nobody can, inside the same private mount namespace that hides the machine's /etc; the folder's own
  // files are readable by all, as git and npm leave them.
  let result;
  if (spawnSync('setpriv', [...as, 'test', '-r', VITEST], { cwd: '/' }).status === 0) {
    result = withoutMachineEtc(name, 'setpriv', vitestAs(ROOT), { env });
  } else {
    const mount = join(out, 'checkout');
    mkdirSync(mount);
    const bind = 'mount --bind "$1" "$2" && cd "$2" && shift 2 && exec "$@"';
    result = withoutMachineEtc(name, 'sh', ['-c', bind, 'sh', ROOT, mount, 'setpriv', ...vitestAs(mount)], { env });
    result = { ...result, note: `${ROOT} is not readable by nobody: run from a bind mount of it` };
  }
  if (CI && existsSync(join(out, 'vitest.json'))) {
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    copyFileSync(join(out, 'vitest.json'), join(ROOT, 'test-output', 'vitest-nobody.json'));
  }
  rmSync(out, { recursive: true, force: true });
  return result;
}

function managed() {
  return withoutMachineEtc('managed', NODE, [join(ROOT, 'test', 'managed', 'isolated.mjs')]);
}

/**
 * Runs every part in turn, whatever the one before did, and returns each one's outcome and seconds; a change to the
 * machine's /etc/agentstack or /etc/cursor during the run is one more failure.
 */
export function runParts(parts, fingerprint = machineEtcFingerprint) {
  const before = fingerprint();
  const results = [];
  for (const [name, part] of parts) {
    const started = Date.now();
    let result;
    try {
      result = part();
    } catch (error) {
      result = { name, state: 'failed', why: String(error?.message ?? error) };
    }
    results.push({ ...result, name, seconds: Math.round((Date.now() - started) / 1000) });
  }
  const after = fingerprint();
  if (after !== before) results.push({ name: 'machine /etc', state: 'failed', why: `changed during the run:\nbefore:\n${before}\nafter:\n${after}` });
  return results;
}

/** The closing lines, and whether the command failed. */
export function summary(results) {
  const line = (r) => `  ${r.name}: ${r.state === 'passed' ? 'passed' : r.state === 'skipped' ? `skipped (${r.why})` : `FAILED (${r.why})`}${r.note ? `; ${r.note}` : ''}${r.seconds !== undefined ? ` [${r.seconds} s]` : ''}`;
  const failed = results.filter((r) => r.state === 'failed');
  const text = `\nnpm test: ${failed.length ? `${failed.length} of ${results.length} parts FAILED` : `all ${results.length} parts passed`}\n${results.map(line).join('\n')}\n`;
  return { text, failed: failed.length > 0 };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // npm passes what follows its own `--` as plain arguments: a part's name selects it, anything else goes to vitest.
  const ALL = ['typecheck', 'vitest', 'nobody', 'managed'];
  const argv = process.argv.slice(2);
  const dash = argv.indexOf('--');
  const before = dash < 0 ? argv : argv.slice(0, dash);
  const named = before.filter((arg) => ALL.includes(arg));
  const vitestArgs = [...before.filter((arg) => !ALL.includes(arg)), ...(dash < 0 ? [] : argv.slice(dash + 1))];
  const wanted = (name) => named.length === 0 || named.includes(name);
  const all = { typecheck, vitest: () => vitest(vitestArgs), nobody: asNobody, managed };
  const results = runParts(ALL.filter(wanted).map((name) => [name, all[name]]));
  const { text, failed } = summary(results);
  process.stdout.write(text);
  process.exit(failed ? 1 : 0);
}
