/**
 * Where this copy of the plugin is, decided once from the script Node runs: every bundle sits at
 * `<root>/hooks/scripts/<name>` or `<root>/scripts/<name>`, so the root is a fixed walk up from it (string work only,
 * no file system: the hooks import this). A plugin installed from the marketplace lives elsewhere than a local-folder
 * install; every next step names the scripts of the copy that runs. Run from the sources (tests), the local-folder
 * install's place stands in.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { tilde } from '../../platform/text/tilde.js';

/** The plugin root of a bundle at `script`, or null when `script` is not one of the plugin's bundles. */
export function pluginRootOfScript(script: string | undefined): string | null {
  if (!script || !/\.[cm]js$/.test(script)) return null;
  const dir = dirname(script);
  if (basename(dir) !== 'scripts') return null;
  const parent = dirname(dir);
  return basename(parent) === 'hooks' ? dirname(parent) : parent;
}

/** The local-folder install's root: where a person copies the plugin by hand. */
export function localInstallRoot(): string {
  return join(homedir(), '.cursor', 'plugins', 'local', 'agentstack');
}

/** A path as a shell reads it: `~/…` (which a shell expands unquoted), quoted in full when it holds a space. */
export function shellPath(path: string): string {
  const short = tilde(path);
  return /[\s"'$`\\]/.test(short) ? JSON.stringify(path) : short;
}

let decided: string | null = null;

/** The root of the copy of the plugin that runs (decided on first use, from `process.argv[1]`). */
export function runningPluginRoot(): string {
  decided ??= pluginRootOfScript(process.argv[1]) ?? localInstallRoot();
  return decided;
}

/** `node <root>/<script>` for one of this copy's scripts (`hooks/scripts/device-code.mjs`), as a shell runs it. */
export function pluginCommand(script: string, root: string = runningPluginRoot()): string {
  const short = tilde(root);
  return /[\s"'$`\\]/.test(short) ? `node ${JSON.stringify(join(root, script))}` : `node ${short}/${script}`;
}
