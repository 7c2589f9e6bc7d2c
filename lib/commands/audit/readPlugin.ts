/**
 * The thin I/O layer of the audit: reads a plugin folder once into plain data the pure rules judge. It only reads:
 * regular files (never a FIFO or device, which could hang it), each up to a size cap. Folders a plugin does not load
 * (dependencies, VCS, tests and their outputs) are not read.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, posix } from 'node:path';
import { isObject } from '../../platform/text/isObject.js';
import { PATH_FIELDS } from './formats/manifestSchema.js';

/** Dependencies, version control, tests and a checkout's own scratch output (mutation runs, benchmark peers): never shipped. */
export const IGNORED_DIRS = new Set(['node_modules', '.git', 'test', 'test-output', 'coverage', '.scratch', '.node-cache', '.stryker-tmp', '.mutation', '.peers']);
const BINARY_EXT = new Set(['.png', '.jpg', '.jpeg', '.gif', '.ico', '.webp', '.woff', '.woff2', '.zip', '.gz']);
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
const MAX_LOGO_BYTES = 8 * 1024 * 1024;
/** Folders whose files Cursor loads into the agent's view: where an anti-pattern does harm. */
const SURFACE_DIRS = ['commands/', 'rules/', 'skills/', 'agents/'];
export const MANIFEST_FILE = '.cursor-plugin/plugin.json';

export type JsonDoc = { path: string; exists: boolean; value?: unknown; error?: string };
export type TextFile = { path: string; text: string };
export type ComponentPath = { field: string; value: string; exists: boolean };

export interface PluginFiles {
  dir: string;
  /** Every file's path relative to `dir`, with `/` separators. */
  files: string[];
  manifest: JsonDoc;
  packageJson: JsonDoc;
  changelog: string | null;
  /** The MCP documents the plugin ships: the manifest's mcpServers path(s), else mcp.json or .mcp.json. */
  mcpDocs: JsonDoc[];
  /** The first of them (or a missing mcp.json): the one AgentStack's rules judge. */
  mcpJson: JsonDoc;
  /** hooks.json (or the manifest's inline hooks object, path `plugin.json "hooks"`), or null when there are none. */
  hooksJson: JsonDoc | null;
  commands: TextFile[];
  skills: TextFile[];
  rules: TextFile[];
  agents: TextFile[];
  /** Every path a manifest field names (except URLs of a logo), and whether it exists. */
  componentPaths: ComponentPath[];
  logo: { path: string; remote: boolean; bytes: Buffer | null } | null;
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
  return posix.normalize(value.replace(/\\/g, '/')).replace(/^\.(\/|$)/, '').replace(/\/$/, '');
}

/** The bytes of a regular file under `dir` (following a link), or null: missing, not a regular file, or too big. */
export function readRegular(dir: string, path: string, maxBytes = MAX_TEXT_BYTES): Buffer | null {
  try {
    const st = statSync(join(dir, path));
    return st.isFile() && st.size <= maxBytes ? readFileSync(join(dir, path)) : null;
  } catch {
    return null;
  }
}

export function readJsonDoc(dir: string, path: string): JsonDoc {
  const bytes = readRegular(dir, path);
  if (!bytes) return { path, exists: false };
  try {
    return { path, exists: true, value: JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) };
  } catch (error) {
    return { path, exists: true, error: (error as Error).message };
  }
}

const isRemote = (v: string) => /^(https?:|data:)/i.test(v);
const declared = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((s): s is string => typeof s === 'string');

function globRegex(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*\*\/?/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\u0000/g, '(?:.*/)?');
  return new RegExp(`^${re}$`);
}

/** The files a component field selects: its paths or globs, else its conventional folder. */
function componentFiles(files: string[], value: unknown, fallback: string, accept: RegExp): string[] {
  const roots = value === undefined ? [fallback] : declared(value).map(relPath);
  return files.filter((f) => accept.test(f) && roots.some((r) => (/[*?[]/.test(r) ? globRegex(r).test(f) : f === r || f.startsWith(`${r}/`))));
}

function componentPaths(dir: string, manifest: Record<string, unknown>): ComponentPath[] {
  const out: ComponentPath[] = [];
  for (const field of [...PATH_FIELDS, 'hooks', 'mcpServers', 'logo']) {
    for (const value of declared(manifest[field])) {
      if (field === 'logo' && isRemote(value)) continue;
      const rel = relPath(value);
      const glob = rel.search(/[*?[]/);
      const staticPart = glob >= 0 ? rel.slice(0, glob).replace(/\/?[^/]*$/, '') : rel;
      const safe = value.trim() && !isRemote(value) && !value.startsWith('/') && !relPath(value).split('/').includes('..');
      out.push({ field, value, exists: !!safe && existsSync(join(dir, staticPart || '.')) });
    }
  }
  return out;
}

function mcpPaths(files: string[], manifest: Record<string, unknown>): string[] {
  const named = declared(manifest.mcpServers).map(relPath);
  if (manifest.mcpServers !== undefined) return named;
  return ['mcp.json', '.mcp.json'].filter((f) => files.includes(f)).slice(0, 1);
}

export function readPluginFiles(dir: string): PluginFiles {
  const files = listFiles(dir);
  const manifest = readJsonDoc(dir, MANIFEST_FILE);
  const m = isObject(manifest.value) ? manifest.value : {};
  const mcpDocs = mcpPaths(files, m).map((p) => readJsonDoc(dir, p));
  const hooksPath = typeof m.hooks === 'string' ? relPath(m.hooks) : m.hooks === undefined && files.includes('hooks/hooks.json') ? 'hooks/hooks.json' : null;
  const hooksJson = isObject(m.hooks) ? { path: 'plugin.json "hooks"', exists: true, value: m.hooks } : hooksPath ? readJsonDoc(dir, hooksPath) : null;
  const texts = files.filter((f) => !BINARY_EXT.has(extname(f).toLowerCase()))
    .map((path) => ({ path, bytes: readRegular(dir, path) }))
    .filter((t): t is { path: string; bytes: Buffer } => t.bytes !== null)
    .map(({ path, bytes }) => ({ path, text: bytes.toString('utf8') }));
  const byPath = new Map(texts.map((t) => [t.path, t]));
  const pick = (paths: string[]) => paths.map((p) => byPath.get(p)).filter((t): t is TextFile => !!t);
  const logoValue = typeof m.logo === 'string' ? m.logo : null;
  const logo = logoValue === null ? null
    : isRemote(logoValue) ? { path: logoValue, remote: true, bytes: null }
      : { path: relPath(logoValue), remote: false, bytes: readRegular(dir, relPath(logoValue), MAX_LOGO_BYTES) };
  const surfacePaths = new Set([MANIFEST_FILE, ...mcpDocs.map((d) => d.path), ...(hooksPath ? [hooksPath] : [])]);
  const surface = texts.filter((t) => surfacePaths.has(t.path) || (SURFACE_DIRS.some((d) => t.path.startsWith(d)) && /\.(md|mdc|json)$/.test(t.path)));
  return {
    dir,
    files,
    manifest,
    packageJson: readJsonDoc(dir, 'package.json'),
    changelog: byPath.get('CHANGELOG.md')?.text ?? null,
    mcpDocs,
    mcpJson: mcpDocs[0] ?? { path: 'mcp.json', exists: false },
    hooksJson,
    commands: pick(componentFiles(files, m.commands, 'commands', /\.md$/)),
    skills: pick(componentFiles(files, m.skills, 'skills', /(^|\/)SKILL\.md$/)),
    rules: pick(componentFiles(files, m.rules, 'rules', /\.mdc$/)),
    agents: pick(componentFiles(files, m.agents, 'agents', /\.md$/)),
    componentPaths: componentPaths(dir, m),
    logo,
    bundles: texts.filter((t) => /^(hooks|scripts)\/.*\.[cm]js$/.test(t.path)),
    surface,
    texts,
  };
}
