/**
 * vitest's global setup for the main suite: after the run, one closing note naming the real-world checks that did
 * not run on this machine (a console line inside a test file scrolls away; this is the last thing printed).
 */
import { existsSync } from 'node:fs';
// @ts-expect-error plain ES module shared with the bench
import { engines } from '../../bench/engines.mjs';
import { CHROMIUM_PATH } from './browser.js';

export default function setup(): () => void {
  return () => {
    const missing = (engines as () => Array<{ version: string; path: string | null }>)().filter((e) => !e.path).map((e) => e.version);
    const notes: string[] = [];
    if (missing.length) notes.push(`the bundles on Node ${missing.join(', ')} (test/plugin/engines: not in .node-cache; node bench/engines.mjs install)`);
    if (!existsSync(CHROMIUM_PATH)) notes.push(`the real-browser sign-ins (no Chromium at ${CHROMIUM_PATH})`);
    if (notes.length) process.stderr.write(`\nNot run on this machine: ${notes.join('; ')}.\n`);
  };
}
