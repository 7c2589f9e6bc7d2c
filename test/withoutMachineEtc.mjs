#!/usr/bin/env node
/**
 * Runs a command where it cannot see the machine's managed files: a private mount namespace with a copy of /etc,
 * minus /etc/agentstack and /etc/cursor, bound over /etc. An administrator's machine has both (the organization's
 * AgentStack settings, Cursor's enterprise hooks), and another process may write them during a run; the tests'
 * results must not depend on either. The product's path stays fixed: the tests' processes simply see no such files.
 * As root: `unshare --mount`. Otherwise a user namespace to make the mounts (`unshare --map-root-user --mount`) and,
 * inside it, another that maps this user back to itself, so the command runs as this user, not as a mapped root.
 *
 *   node test/withoutMachineEtc.mjs <command> [args…]
 *
 * Exits with the command's status; where no namespace can be made (not Linux, user namespaces off) it runs nothing and
 * exits 97 with the reason on stderr (`hideMachineEtc` returns it to a caller, which decides).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the tests must never see of the machine. */
export const MACHINE_ETC = ['/etc/agentstack', '/etc/cursor'];
/** Set in the command's environment: its /etc is the copy. */
export const HIDDEN_ENV = 'AGENTSTACK_TEST_MACHINE_ETC';
const CANNOT = 97;

/** What the machine's managed folders hold: each entry's name, kind, mode, owner and content hash ("absent"). */
export function machineEtcFingerprint() {
  const walk = (path) => {
    let st;
    try { st = lstatSync(path); } catch { return [`${path} absent`]; }
    const head = `${path} ${st.mode.toString(8)} ${st.uid}:${st.gid}`;
    if (st.isDirectory()) return [head, ...readdirSync(path).sort().flatMap((name) => walk(join(path, name)))];
    if (st.isFile()) return [`${head} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`];
    return [`${head} -> ${st.isSymbolicLink() ? readlinkSync(path) : 'special'}`];
  };
  return MACHINE_ETC.flatMap((path) => walk(path)).join('\n');
}

/**
 * Runs `command` with `args` without the machine's managed files (stdio inherited, or `options.stdio`). Returns
 * `{ status, signal }`, or `{ unavailable: why }` when no namespace could be made (nothing was run).
 */
export function hideMachineEtc(command, args = [], options = {}) {
  if (process.platform !== 'linux') return { unavailable: `hiding /etc needs a Linux mount namespace (this is ${process.platform})` };
  const asRoot = process.getuid() === 0;
  const work = mkdtempSync(join(tmpdir(), 'agentstack-test-etc-'));
  // cp may not copy what this user cannot read (/etc/shadow in a user namespace); processes need passwd, hosts,
  // resolv.conf, certificates, and the copy is checked.
  const enter = [
    `cp -a /etc "$WORK/etc" 2>/dev/null; test -f "$WORK/etc/passwd" || { echo "copying /etc failed" >&2; exit ${CANNOT}; }`,
    `rm -rf ${MACHINE_ETC.map((path) => `"$WORK${path}"`).join(' ')} || exit ${CANNOT}`,
    `mount --bind "$WORK/etc" /etc || exit ${CANNOT}`,
    `: > "$WORK/entered"`,
    asRoot ? 'exec "$@"' : `exec unshare --map-user=${process.getuid()} --map-group=${process.getgid()} -- "$@"`,
  ].join('\n');
  const unshare = asRoot ? ['--mount', '--propagation', 'private'] : ['--map-root-user', '--mount', '--propagation', 'private'];
  const run = spawnSync('unshare', [...unshare, 'sh', '-c', enter, 'sh', command, ...args], {
    stdio: 'inherit',
    ...options,
    env: { ...(options.env ?? process.env), WORK: work, [HIDDEN_ENV]: 'hidden' },
  });
  const entered = existsSync(join(work, 'entered'));
  rmSync(work, { recursive: true, force: true });
  if (!entered) return { unavailable: run.error ? `unshare could not be run (${run.error.code})` : `no private mount namespace could be made here (${asRoot ? 'unshare --mount' : 'unshare --map-root-user --mount: user namespaces may be off'}, exit ${run.status})` };
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write('usage: node test/withoutMachineEtc.mjs <command> [args…]\n');
    process.exit(2);
  }
  const run = hideMachineEtc(command, args);
  if (run.unavailable) {
    process.stderr.write(`${run.unavailable}\n`);
    process.exit(CANNOT);
  }
  process.exit(run.status ?? 1);
}
