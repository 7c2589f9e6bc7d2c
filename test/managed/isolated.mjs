#!/usr/bin/env node
/**
 * Runs test/managed (vitest.managed.config.ts) in a private mount namespace with a copy of /etc bound over /etc, so
 * the tests write /etc/agentstack in the copy and the real /etc is left alone (no other user's plugin sees the test's
 * rules, and two runs never collide). The same for /usr/local/lib (where install-hooks copies the organization's
 * gate; the tests of it say they run only when AGENTSTACK_MANAGED_USR_LOCAL_LIB is `copy`), and the real
 * /etc/cursor and /usr/local/lib/agentstack-cursor are compared before and after too. As root: `unshare --mount`; otherwise a user namespace (`unshare
 * --map-root-user --mount`), where the tests run as a root mapped to this user. Where neither is possible the tests
 * are skipped and this says why (in CI, where `CI` is set, that fails instead). Afterwards it checks that the real
 * /etc/agentstack is as it was, and fails when it is not.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const REAL = '/etc/agentstack';
/** What the enterprise-hooks tests write, outside the copy's own /etc/agentstack. */
const ALSO = ['/etc/cursor', '/usr/local/lib/agentstack-cursor'];

/** What the real /etc/agentstack holds: each entry's name, kind, mode, owner and content hash. */
export function fingerprint(dir = REAL) {
  if (!existsSync(dir)) return 'absent';
  const walk = (path) => {
    const st = lstatSync(path);
    const head = `${path} ${st.mode.toString(8)} ${st.uid}:${st.gid}`;
    if (st.isDirectory()) return [head, ...readdirSync(path).sort().flatMap((name) => walk(join(path, name)))];
    if (st.isFile()) return [`${head} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`];
    return [`${head} -> ${st.isSymbolicLink() ? readlinkSync(path) : 'special'}`];
  };
  return walk(dir).join('\n');
}

function skipped(reason) {
  const line = `\ntest/managed (the managed-settings end-to-end tests) did NOT run: ${reason}\n`;
  if (process.env.CI) {
    process.stderr.write(`${line}In CI they must run: failing.\n`);
    process.exit(1);
  }
  process.stderr.write(line);
  process.exit(0);
}

if (process.platform !== 'linux') skipped(`they need a Linux mount namespace (this is ${process.platform})`);
const asRoot = process.getuid() === 0;
const before = fingerprint();
const beforeAlso = ALSO.map((d) => fingerprint(d));
const work = mkdtempSync(join(tmpdir(), 'agentstack-managed-etc-'));
const entered = join(work, 'entered');
// cp may not copy what this user cannot read (/etc/shadow in a user namespace): the copy needs only what processes
// read (passwd, hosts, resolv.conf, certificates), and it is checked.
const script = [
  'cp -a /etc "$WORK/etc" 2>/dev/null; test -f "$WORK/etc/passwd" || { echo "copying /etc failed" >&2; exit 97; }',
  'mount --bind "$WORK/etc" /etc || exit 97',
  // /usr/local/lib: a copy too, when there is one to copy (else the enterprise-hooks tests skip themselves).
  'if [ -d /usr/local/lib ]; then cp -a /usr/local/lib "$WORK/usr-local-lib" && mount --bind "$WORK/usr-local-lib" /usr/local/lib || exit 97; export AGENTSTACK_MANAGED_USR_LOCAL_LIB=copy; fi',
  ': > "$WORK/entered"',
  'exec "$NODE" "$VITEST" run --config vitest.managed.config.ts "$@"',
].join('\n');
const unshare = asRoot ? ['--mount', '--propagation', 'private'] : ['--map-root-user', '--mount', '--propagation', 'private'];
let outerMnt = '';
try { outerMnt = readlinkSync('/proc/self/ns/mnt'); } catch { /* no /proc */ }
const run = spawnSync('unshare', [...unshare, 'sh', '-c', script, 'sh', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, WORK: work, NODE: process.execPath, VITEST, AGENTSTACK_MANAGED_ETC: 'copy', AGENTSTACK_MANAGED_OUTER_PID: String(process.pid), AGENTSTACK_MANAGED_OUTER_MNT: outerMnt },
});
const inside = existsSync(entered);
rmSync(work, { recursive: true, force: true });
const after = fingerprint();
if (after !== before) {
  process.stderr.write(`\nThe real ${REAL} changed during test/managed:\nbefore:\n${before}\nafter:\n${after}\n`);
  process.exit(1);
}
ALSO.forEach((d, i) => {
  const now = fingerprint(d);
  if (now === beforeAlso[i]) return;
  process.stderr.write(`\nThe real ${d} changed during test/managed:\nbefore:\n${beforeAlso[i]}\nafter:\n${now}\n`);
  process.exit(1);
});
if (!inside) skipped(run.error ? `unshare could not be run (${run.error.code})` : `no private mount namespace could be made here (${asRoot ? 'unshare --mount' : 'unshare --map-root-user --mount: user namespaces may be off'}, exit ${run.status})`);
if (run.status !== 0) process.stderr.write(`test/managed failed (exit ${run.status ?? run.signal}); the real ${REAL} is unchanged.\n`);
else process.stdout.write(`test/managed ran in a private mount namespace over a copy of /etc${asRoot ? '' : ' (a user namespace)'}; the real ${REAL} is unchanged (${before === 'absent' ? 'absent' : 'same files'}).\n`);
process.exit(run.status ?? 1);
