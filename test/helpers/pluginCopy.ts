import { chmodSync, cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo.js';

/** What an installed plugin folder holds: the repo's shipped files, without its build tooling or sources. */
export const PLUGIN_FILES = ['.cursor-plugin', 'mcp.json', 'hooks', 'scripts', 'commands', 'rules', 'assets', 'package.json', 'CHANGELOG.md', 'README.md', 'LICENSE'];

/** Copies this repo's plugin files into `dest` (a plain plugin folder, as Cursor installs it). */
export function copyPlugin(dest: string): string {
  for (const name of PLUGIN_FILES) {
    if (existsSync(join(REPO_ROOT, name))) cpSync(join(REPO_ROOT, name), join(dest, name), { recursive: true });
  }
  return dest;
}

/** Opens a copied tree to every user (folders 0755, files 0644, executables 0755), whatever the checkout's umask. */
export function makeReadable(path: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) makeReadable(join(path, name));
  } else {
    chmodSync(path, stat.mode & 0o111 ? 0o755 : 0o644);
  }
}
