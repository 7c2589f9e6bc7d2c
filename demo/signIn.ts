/** Demo step 1: run device-code.mjs --json and play the person who approves (or let a real person do it). */
import type { RunningCore } from '../core/index.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { script, say, StepFailed } from './steps.js';

export async function signIn(args: { core: RunningCore; env: NodeJS.ProcessEnv; interactive: boolean }): Promise<void> {
  const { core, env, interactive } = args;
  const child = spawn(process.execPath, [script('hooks/scripts/device-code.mjs'), '--json', '--no-browser'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let outcome: Record<string, unknown> | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    let event: Record<string, unknown>;
    try { event = JSON.parse(line); } catch { continue; }
    if (event.event === 'device_code') {
      say(`   Code: ${event.user_code}`);
      say(`   Enter it at ${event.verification_uri} (or open ${event.verification_uri_complete})`);
      if (interactive) {
        const account = core.accounts[0]!;
        say(`   Open the URL in your browser and sign in as ${account.email} / ${account.password}, then confirm. Waiting…`);
      } else {
        say(`   An automatic approver now plays the person and approves as ${core.accounts[0]!.email} (use --interactive to do it yourself).`);
        setTimeout(() => { core.approve(String(event.user_code)).catch((e) => say(`   approver failed: ${e}`)); }, 300);
      }
    } else if (event.event === 'pending') {
      say('   …waiting for approval');
    } else if (event.event === 'authorized' || event.event === 'error') {
      outcome = event;
    }
  }
  const code = await exited;
  if (!outcome || outcome.event !== 'authorized' || code !== 0) {
    throw new StepFailed(`device-code ended with ${JSON.stringify(outcome ?? {})} (exit ${code}) ${stderr.trim().slice(0, 300)}`);
  }
  say(`   ✓ Signed in to ${outcome.server_url}; project ${outcome.project_id ?? 'none pinned'}; ${outcome.capabilities} actions in the capability snapshot.`);
}
