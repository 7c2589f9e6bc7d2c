/**
 * The suite cannot see the machine's managed files. In a private mount namespace (a copy of /etc over /etc, so the
 * real /etc is never written) an organization's /etc/agentstack/managed-settings.json (`policy: readonly`) and a
 * /etc/cursor are planted: a process there sees them, the product reads the policy, and the main suite's global setup
 * refuses to run; the same process started through test/withoutMachineEtc.mjs (what npm test does) sees neither.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module shared with the runner
import { hideMachineEtc } from '../withoutMachineEtc.mjs';
import { notRunWhen } from '../helpers/notRun.js';
import { REPO_ROOT } from '../helpers/repo.js';

const AS_ROOT = process.getuid?.() === 0;
const probe = () => (hideMachineEtc as (c: string, a: string[], o: object) => { unavailable?: string })('true', [], { stdio: 'ignore' });
const unavailable = process.platform !== 'linux' ? 'it needs a Linux mount namespace' : (probe().unavailable ?? null);

/** Runs `script` (sh) in a new mount namespace whose /etc is a copy with the organization's files planted. */
function withPlantedEtc(script: string): { status: number | null; stdout: string; stderr: string } {
  const plant = [
    'work=$(mktemp -d)',
    'cp -a /etc "$work/etc" 2>/dev/null; test -f "$work/etc/passwd" || exit 97',
    'mount --bind "$work/etc" /etc || exit 97',
    'mkdir -p /etc/agentstack /etc/cursor',
    `printf '%s' '{"policy":"readonly"}' > /etc/agentstack/managed-settings.json`,
    'chmod 644 /etc/agentstack/managed-settings.json',
    `printf '%s' '{"version":1,"hooks":{}}' > /etc/cursor/hooks.json`,
    script,
  ].join('\n');
  const unshare = AS_ROOT ? ['--mount', '--propagation', 'private'] : ['--map-root-user', '--mount', '--propagation', 'private'];
  const run = spawnSync('unshare', [...unshare, 'sh', '-c', plant], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, NODE: process.execPath }, timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const PROBE = '"$NODE" --import tsx test/fixtures/machineEtcProbe.ts';

describe('the machine\'s /etc/agentstack and /etc/cursor, planted in a namespace of the test\'s own', notRunWhen(unavailable && `no private mount namespace can be made here (${unavailable})`), () => {
  // One namespace for all three runs: each costs a copy of /etc and a start of tsx.
  it('seen by a plain process (the product reads its policy, the suite refuses to start); hidden through withoutMachineEtc; one that appears during a run fails it', () => {
    const run = withPlantedEtc([
      PROBE,
      `"$NODE" test/withoutMachineEtc.mjs ${PROBE}`,
      'rm -r /etc/agentstack /etc/cursor',
      `"$NODE" --import tsx -e "
        const { default: setup } = await import('${join(REPO_ROOT, 'test/helpers/machineEtc.ts')}');
        const teardown = setup();
        (await import('node:fs')).mkdirSync('/etc/agentstack');
        try { teardown(); console.log(JSON.stringify({ refused: null })); } catch (e) { console.log(JSON.stringify({ refused: e.message })); }"`,
    ].join('\n'));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const [seen, hidden, appeared] = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(seen.visible).toEqual(['/etc/agentstack', '/etc/cursor']);
    expect(seen.managed).toEqual({ policy: 'readonly' });
    expect(seen.refused).toMatch(/^\/etc\/agentstack and \/etc\/cursor exist on this machine.*npm test/);
    expect(hidden).toEqual({ visible: [], managed: null, refused: null });
    expect(appeared.refused).toMatch(/^\/etc\/agentstack appeared during the run on this machine/);
  });
});
