/**
 * The file layer of the mcp.json manager: read strictly (a broken file is reported with its position and left
 * byte-for-byte alone), write atomically with mode 0600 under a cross-process lock, and only when something changed.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { tightenMode } from '../../platform/fs/tightenMode.js';
import { PluginError } from '../../platform/errors.js';
import { withLock, type LockOptions } from '../../platform/fs/fileLock.js';
import { findJsonError } from '../../platform/text/jsonPosition.js';
import type { McpConfig, McpConfigUpdate } from './entry.js';
import { lockPathFor } from '../../platform/fs/lockPath.js';
import { SECRET_FILE_MODE, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { sweepLeftovers } from '../../platform/fs/tempSweep.js';
import type { JsonEdit } from '../../platform/text/jsonEdit.js';
import { isObject } from '../../platform/text/isObject.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export interface ReadMcpConfig {
  config: McpConfig;
  /** The file's text, or null when it does not exist (then `config` is `{}`). */
  text: string | null;
}

/** Parses mcp.json text; throws `malformed_file` naming the file and where it goes wrong (never quoting it). */
export function parseMcpConfigText(text: string, path: string): McpConfig {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!body.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    // V8's message may quote the text (a Bearer): the position comes from our own grammar, run only on a broken file.
    const position = findJsonError(body) ?? { line: 1, column: 1, reason: 'not valid JSON' };
    throw new PluginError(
      'malformed_file',
      `${path} is not valid JSON (line ${position.line}, column ${position.column}: ${position.reason}). ` +
        'It was left unchanged; fix it or move it aside, then run this again.',
      { details: { path, line: position.line, column: position.column } },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PluginError('malformed_file', `${path} must hold a JSON object ({"mcpServers": {...}}). It was left unchanged.`, { details: { path } });
  }
  const servers = (value as McpConfig).mcpServers;
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new PluginError('malformed_file', `"mcpServers" in ${path} must be an object. It was left unchanged.`, { details: { path } });
  }
  return value as McpConfig;
}

const UNREADABLE: Record<string, string> = { EISDIR: 'it is a folder, not a file', EACCES: 'permission denied', EPERM: 'permission denied', ELOOP: 'it is a symlink loop' };

/** The file's text; a path that exists but cannot be read (a folder, no permission) is `malformed_file`, not a raw errno. */
function readConfigText(path: string): string | null {
  try {
    return readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.mcpJson });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PluginError('malformed_file', `${path} cannot be read (${UNREADABLE[code] ?? code}). It was left unchanged; move it aside or fix it, then run this again.`, { details: { path, errno: code } });
  }
}

export function readMcpConfigFile(path: string): ReadMcpConfig {
  const text = readConfigText(path);
  return { text, config: text === null ? {} : parseMcpConfigText(text, path) };
}

export function serializeMcpConfig(config: McpConfig): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

const sameJson = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** The edits that turn `before` into `after`, one per changed top-level key or `mcpServers` entry (pure). */
export function configEdits(before: McpConfig, after: McpConfig): JsonEdit[] {
  const edits: JsonEdit[] = [];
  const diff = (from: Record<string, unknown>, to: Record<string, unknown>, prefix: string[], nested: (key: string) => boolean) => {
    for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
      const a = Object.hasOwn(from, key) ? from[key] : undefined;
      const b = Object.hasOwn(to, key) ? to[key] : undefined;
      if (nested(key) && isObject(a) && isObject(b)) diff(a, b, [...prefix, key], () => false);
      else if (!sameJson(a, b)) edits.push({ path: [...prefix, key], value: b });
    }
  };
  diff(before, after, [], (key) => key === 'mcpServers');
  return edits;
}

/**
 * The new text of mcp.json: the old text with only what the transform changed edited in place (other servers keep
 * every byte: numbers JSON.parse would round, key order, formatting), or a fresh serialization for a new file.
 */
export async function nextMcpConfigText(text: string | null, before: McpConfig, after: McpConfig, path: string): Promise<string> {
  // A BOM is dropped, as before (a strict JSON reader refuses one): the only byte changed outside the edit.
  const body = text === null ? '' : text.replace(/^\uFEFF/, '');
  if (!body.trim()) return serializeMcpConfig(after);
  // Loaded only when an existing file is rewritten: a hook that writes nothing never compiles the edit engine.
  const { editJsonText } = await import('../../platform/text/jsonEdit.js');
  const edited = editJsonText(body, configEdits(before, after));
  if (edited.kind !== 'ok') {
    throw new PluginError('malformed_file', `${path} ${edited.reason}; fix it by hand, then run this again. It was left unchanged.`, { details: { path } });
  }
  const next = edited.text;
  // The edit engine must have produced what the transform asked for; if not, write nothing.
  const check = parseMcpConfigText(next, path);
  if (!sameJson(check.mcpServers && (check.mcpServers as McpConfig)[MCP_SERVER_KEY], isObject(after.mcpServers) ? after.mcpServers[MCP_SERVER_KEY] : undefined)) {
    throw new PluginError('io', `Could not edit ${path} safely; it was left unchanged`);
  }
  return next;
}

export interface UpdateResult extends McpConfigUpdate {
  path: string;
  /** Where mcp.json pointed when it was a symlink that this write replaced with a regular file. */
  replacedSymlink?: string;
}

function symlinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads, transforms and (when `changed`) rewrites mcp.json under its lock (`mcp.json.lock`), so two writers never lose each
 * other's change. An existing file that is readable by others is tightened to 0600 (it may hold a Bearer).
 */
export async function updateMcpConfigFile(
  path: string,
  transform: (config: McpConfig) => McpConfigUpdate,
  lockOptions?: LockOptions,
): Promise<UpdateResult> {
  return withLock(lockPathFor(path), async () => {
    const { config, text } = readMcpConfigFile(path);
    const result = transform(config);
    let replacedSymlink: string | undefined;
    if (result.changed) {
      const next = await nextMcpConfigText(text, config, result.config, path);
      // A symlinked mcp.json (a dotfiles setup) is replaced, never written through; the caller tells the person.
      replacedSymlink = symlinkTarget(path);
      writeFileAtomic(path, next, { mode: SECRET_FILE_MODE });
    } else if (text !== null) {
      try { tightenMode(path); } catch { /* not ours to fix (e.g. a read-only mount) */ }
    }
    // Under the lock no other writer of ours is mid-write: remove temp files left by writers that were killed.
    sweepLeftovers(path);
    return replacedSymlink === undefined ? { ...result, path } : { ...result, path, replacedSymlink };
  }, lockOptions);
}


/** One line for the person when a write replaced a symlinked mcp.json, or null. */
export function symlinkNotice(result: Pick<UpdateResult, 'path' | 'replacedSymlink'>): string | null {
  if (result.replacedSymlink === undefined) return null;
  return `${result.path} was a symlink to ${result.replacedSymlink}; it is now a regular file (the plugin never writes through links). If you keep mcp.json elsewhere, copy it back there and re-link it.`;
}
