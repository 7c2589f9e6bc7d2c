/**
 * vitest's global setup for the main suite: the tests must not see the machine's managed files (/etc/agentstack, the
 * organization's AgentStack settings; /etc/cursor, Cursor's enterprise hooks), or their results would depend on what
 * this machine has there. `npm test` runs the suite where they are hidden (test/withoutMachineEtc.mjs); a run that can
 * see them is refused before any test starts, and one in which they appeared fails at its end.
 */
import { existsSync } from 'node:fs';
// @ts-expect-error plain ES module shared with the runner
import { MACHINE_ETC } from '../withoutMachineEtc.mjs';

export function visibleMachineEtc(): string[] {
  return (MACHINE_ETC as string[]).filter((path) => existsSync(path));
}

function refusal(paths: string[], when: string): Error {
  return new Error(`${paths.join(' and ')} ${when} on this machine, and the tests must not depend on it: run them through \`npm test\`, or \`node test/withoutMachineEtc.mjs npx vitest run …\`, which hide it`);
}

export default function setup(): () => void {
  const before = visibleMachineEtc();
  if (before.length) throw refusal(before, before.length > 1 ? 'exist' : 'exists');
  return () => {
    const after = visibleMachineEtc();
    if (after.length) throw refusal(after, 'appeared during the run');
  };
}
