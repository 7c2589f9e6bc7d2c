/**
 * The thin I/O layer of the audit: reads a plugin folder once into plain data the pure rules judge.
 * Folders a plugin does not load (dependencies, VCS, tests and their outputs) are not read.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, posix } from 'node:path';
import { isObject } from '../../platform/text/isObject.js';

export const IGNORED_DIRS = new Set(['node_modules', '.git', 'test', 'test-output', 'coverage', '.scratch', '.node-cache']);
const BINARY_EXT = new Set(['.png', '.jpg', '.jpeg', '.gif', '.ico', '.webp', '.woff', '.woff2', '.zip', '.gz']);
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** Folders whose files Cursor loads into the agent's view: where an anti-pattern does harm. */
const SURFACE_DIRS = ['commands/', 'rules/', 'skills/', 'agents/'];

export type JsonDoc = { path: string; exists: boolean; value?: unknown; error?: string };
export type TextFile = { path: string; text: string };

export interface PluginFiles {
  dir: string;
  /** Every file's path relative to `dir`, with `/` separators. */
  files: string[];
  manifest: JsonDoc;
  packageJson: JsonDoc;
  changelog: string | null;
  mcpJson: JsonDoc;
  hooksJson: JsonDoc | null;
  commands: TextFile[];
  logo: { path: string; bytes: Buffer | null } | null;
  bundles: TextFile[];
  /** The manifest, mcp.json, hooks.json and the commands/rules/skills/agents files. */
  surface: TextFile[];
  /** Every text file, for the secret scan. */
  texts: TextFile[];
}

export function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!IGNORED_DIRS.has(entry.name)) out.push(...listFiles(dir, rel));
    } else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

/** A manifest path (`./commands/`, `assets/logo.png`) as a plain relative path (`commands`, `assets/logo.png`). */
export function relPath(value: string): string {
  return posix.normalize(value.replace(/\\/g, '/')).replace(/^\.\/?/, '').replace(/\/$/, '');
}

function readJsonDoc(dir: string, path: string): JsonDoc {
  let text: string;
  try {
    text = readFileSync(join(dir, path), 'utf8');
  } catch {
    return { path, exists: false };
  }
  try {
    return { path, exists: true, value: JSON.parse(text) };
  } catch (error) {
    return { path, exists: true, error: (error as Error).message };
  }
}

const readText = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

function isTextFile(dir: string, path: string): boolean {
  if (BINARY_EXT.has(extname(path).toLowerCase())) return false;
  return statSync(join(dir, path)).size <= MAX_TEXT_BYTES;
}

function commandFiles(files: string[], manifest: Record<string, unknown>): string[] {
  const declared = manifest.commands ?? './commands/';
  const roots = (Array.isArray(declared) ? declared : [declared]).filter((v): v is string => typeof v === 'string').map(relPath);
  return files.filter((f) => f.endsWith('.md') && roots.some((r) => f === r || f.startsWith(`${r}/`)));
}

export function readPluginFiles(dir: string): PluginFiles {
  const files = listFiles(dir);
  const manifest = readJsonDoc(dir, '.cursor-plugin/plugin.json');
  const m = isObject(manifest.value) ? manifest.value : {};
  const mcpPath = typeof m.mcpServers === 'string' ? relPath(m.mcpServers) : 'mcp.json';
  const hooksPath = typeof m.hooks === 'string' ? relPath(m.hooks) : files.includes('hooks/hooks.json') ? 'hooks/hooks.json' : null;
  const texts = files.filter((f) => isTextFile(dir, f)).map((path) => ({ path, text: readText(dir, path) }));
  const byPath = new Map(texts.map((t) => [t.path, t]));
  const commands = commandFiles(files, m).map((p) => byPath.get(p)).filter((t): t is TextFile => !!t);
  const logoPath = typeof m.logo === 'string' ? relPath(m.logo) : null;
  let logoBytes: Buffer | null = null;
  if (logoPath) try { logoBytes = readFileSync(join(dir, logoPath)); } catch { logoBytes = null; }
  const surfacePaths = new Set(['.cursor-plugin/plugin.json', mcpPath, ...(hooksPath ? [hooksPath] : [])]);
  const surface = texts.filter((t) => surfacePaths.has(t.path) || (SURFACE_DIRS.some((d) => t.path.startsWith(d)) && /\.(md|mdc|json)$/.test(t.path)));
  return {
    dir,
    files,
    manifest,
    packageJson: readJsonDoc(dir, 'package.json'),
    changelog: byPath.get('CHANGELOG.md')?.text ?? null,
    mcpJson: readJsonDoc(dir, mcpPath),
    hooksJson: hooksPath ? readJsonDoc(dir, hooksPath) : null,
    commands,
    logo: logoPath ? { path: logoPath, bytes: logoBytes } : null,
    bundles: texts.filter((t) => /^(hooks|scripts)\/.*\.[cm]js$/.test(t.path)),
    surface,
    texts,
  };
}
