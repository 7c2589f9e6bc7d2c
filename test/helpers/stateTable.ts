/**
 * The state table's plumbing, shared by its files: the BUILT plugin installed where a marketplace install puts it
 * (not ~/.cursor/plugins/local/agentstack, so a view that names the local-folder install is caught), and its views run
 * as a person or Cursor runs them, with HOME and the Cursor dir both the state's folder (so `~` means it).
 *
 *   const plugin = builtPlugin(tmp);                 // once per file: a copy of the built tree
 *   const root = installPlugin(plugin, home);        // per home: hard links, cheap
 *   await runView(root, 'scripts/diagnose-local.mjs', ['--json'], { home, server });
 *   expect(text).toContain(installed('node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs'));
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { baseChildEnv } from './platform.js';
import { PLUGIN_FILES } from './pluginCopy.js';
import { REPO_ROOT } from './repo.js';

/** Where, under a home, the table installs the plugin: a marketplace-like folder. */
export const PLUGIN_AT = 'plugins/marketplaces/agentstack-team/agentstack';
/** The local-folder install's scripts as the sources (and so the test process) name them. */
const LOCAL_PREFIX = 'node ~/.cursor/plugins/local/agentstack/';

/** A copy of the built plugin tree at `from` (default: this worktree, after `npm run build`), once per test file. */
export function builtPlugin(tmp: string, from = process.env.AGENTSTACK_VIEWS_ROOT || REPO_ROOT): string {
  const dest = join(tmp, 'built-plugin');
  if (existsSync(dest)) return dest;
  mkdirSync(dest, { recursive: true });
  for (const name of PLUGIN_FILES) if (existsSync(join(from, name))) cpSync(join(from, name), join(dest, name), { recursive: true });
  return dest;
}

function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) linkTree(src, join(to, name));
    else linkSync(src, join(to, name));
  }
}

/** Installs `built` under `home` at PLUGIN_AT (hard links; idempotent) and returns the plugin root. */
export function installPlugin(built: string, home: string): string {
  const root = join(home, PLUGIN_AT);
  if (!existsSync(join(root, '.cursor-plugin'))) linkTree(built, root);
  return root;
}

/**
 * `text` (a string the sources name the local-folder install in) with the scripts named where the plugin runs: by
 * default where the table installs it (`node ~/plugins/…`), else at `root` as written (a bundle run from this worktree).
 */
export function installed(text: string, root = `~/${PLUGIN_AT}`): string {
  return text.replaceAll(LOCAL_PREFIX, `node ${root}/`);
}

export interface ViewRun { code: number; out: string; err: string }

/** Runs the bundle `script` of the plugin at `root` as a person's shell (or Cursor) does: HOME and the Cursor dir are `home`. */
export function runView(root: string, script: string, args: string[], o: { home: string; server: string; env?: Record<string, string>; stdin?: string }): Promise<ViewRun> {
  const env = { ...baseChildEnv(), HOME: o.home, AGENTSTACK_CURSOR_DIR: o.home, AGENTSTACK_BASE_URL: o.server, AGENTSTACK_DISABLE_AUTO_LOGIN: '1', ...o.env };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [join(root, script), ...args], { env, timeout: 90_000, maxBuffer: 4 << 20 }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, out, err });
    });
    child.stdin!.end(o.stdin ?? '');
  });
}
