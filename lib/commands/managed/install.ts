/**
 * `managed.mjs install-hooks` and `remove-hooks`: the organization's gate in Cursor's enterprise hooks file. Install
 * copies the gate to the administrators' folder, checks every level of it (and of the node it runs) can be written
 * by root only, adds the two entries to the hooks file (surgical edits; every other entry keeps its bytes; a new file
 * is 0644), and writes the marker last. Remove takes the marker out first, then only what install put in the file,
 * then the copy. Both run as root or Administrator only; a second run changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../platform/fs/secureFile.js';
import { enterpriseHooksPath, orgGateDir, orgMarkerPath, orgScriptsDir } from '../../agentstack/plugin/orgGate.js';
import { chainProblem, chainProblemOfNearest } from './trust.js';
import { hookCommand, unsafePath } from './commandLine.js';
import { addGateEntries, newHooksText, removeGateEntries, type GateEntries } from './hooksFile.js';
import { capabilityMapPath } from '../../agentstack/policy/capabilityMap.js';
import { mapOfCatalog, removeCapabilityMap, writeCapabilityMap } from './capabilities.js';
import { gateFiles, makeFolders, readMarker, removeCopy, sha256, syncFiles, type Marker } from './copy.js';

/** Exit codes: 0 done, 1 failed or refused (nothing half-done is left in the hooks file), 2 bad usage, 3 not an administrator. */
export interface ManagedResult { code: 0 | 1 | 2 | 3; stdout: string; stderr: string }

export interface InstallOptions {
  /** The plugin's root (its hooks/scripts are copied). */
  pluginRoot: string;
  /** The node the hooks run (`--node`); the one running this script otherwise. */
  node?: string;
  version: string;
  platform?: NodeJS.Platform;
  /** `--catalog`: the text of the server's `GET /mcp/actions`, kept as the organization's capability map. */
  catalog?: string;
}

/** The pre-MCP hook's timeout in the enterprise file (seconds), as in the plugin's hooks.json. */
export const GATE_TIMEOUT_S = 5;
const HOOKS_FILE_MAX = 1024 * 1024;

export function isAdministrator(platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'win32') return process.getuid?.() === 0;
  // fltmc answers only in an elevated prompt.
  return spawnSync('fltmc', { stdio: 'ignore', windowsHide: true, timeout: 10_000 }).status === 0;
}

const fail = (stderr: string, code: 1 | 3 = 1): ManagedResult => ({ code, stdout: '', stderr: `${stderr}\n` });

function notAdmin(what: string, platform: NodeJS.Platform): ManagedResult {
  const how = platform === 'win32' ? 'from a terminal started with "Run as administrator"' : 'as root (sudo node …/scripts/managed.mjs …)';
  return fail(`managed ${what}: refused: only an administrator may change ${enterpriseHooksPath(platform)} and ${orgGateDir(platform)}; run it ${how}. Nothing was changed.`, 3);
}

/** The node the entries run, checked: absolute, a file, plainly quotable, and changeable by root only. */
function checkedNode(node: string, platform: NodeJS.Platform): string | null {
  const unsafe = unsafePath(node, platform);
  if (unsafe) return `the node ${unsafe}; give --node with a plain absolute path (e.g. /usr/bin/node)`;
  try {
    if (!statSync(node).isFile()) return `the node ${node} is not a file`;
  } catch {
    return `the node ${node} does not exist`;
  }
  const problem = platform === 'win32' ? null : chainProblem(node);
  return problem ? `the node ${node} could be replaced by someone other than root (${problem}); give --node with one only root can change (e.g. /usr/bin/node)` : null;
}

function readHooksFile(path: string): { text: string | null; mode: number; uid: number; gid: number } {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return { text: null, mode: 0o644, uid: 0, gid: 0 };
  }
  if (!st.isFile()) throw new Error(`${path} is not a regular file`);
  if (st.size > HOOKS_FILE_MAX) throw new Error(`${path} is larger than ${HOOKS_FILE_MAX} bytes`);
  return { text: readFileSync(path, 'utf8'), mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
}

function writeKeeping(path: string, text: string, was: { mode: number; uid: number; gid: number }): void {
  writeFileAtomic(path, text, { mode: was.mode });
  chmodSync(path, was.mode);
  if (process.platform !== 'win32') chownSync(path, was.uid, was.gid);
}

export function installHooks(o: InstallOptions): ManagedResult {
  const platform = o.platform ?? process.platform;
  if (!isAdministrator(platform)) return notAdmin('install-hooks', platform);
  const node = o.node ?? process.execPath;
  const nodeProblem = checkedNode(node, platform);
  if (nodeProblem) return fail(`managed install-hooks: refused: ${nodeProblem}. Nothing was changed.`);
  const root = orgGateDir(platform);
  const scripts = orgScriptsDir(platform);
  const hooksPath = enterpriseHooksPath(platform);
  const scriptPaths = { pre: join(scripts, 'pre-mcp-cap-check.cjs'), after: join(scripts, 'after-mcp-journal.cjs') };
  for (const p of [scriptPaths.pre, hooksPath]) {
    const unsafe = unsafePath(p, platform);
    if (unsafe) return fail(`managed install-hooks: refused: ${unsafe}. Nothing was changed.`);
  }
  for (const p of [root, hooksPath]) {
    const problem = chainProblemOfNearest(p, platform);
    if (problem) return fail(`managed install-hooks: refused: ${p} sits in a folder others can change (${problem}). Nothing was changed.`);
  }
  let map: ReturnType<typeof mapOfCatalog> | null = null;
  try {
    map = o.catalog === undefined ? null : mapOfCatalog(o.catalog);
  } catch (error) {
    return fail(`managed install-hooks: refused: ${(error as Error).message}. Nothing was changed.`);
  }
  const lines: string[] = [];
  try {
    const files = gateFiles(join(o.pluginRoot, 'hooks', 'scripts'));
    const copied = syncFiles(scripts, files);
    const problem = platform === 'win32' ? null : [root, join(root, 'hooks'), scripts, ...[...files.keys()].map((n) => join(scripts, n))].map(chainProblem).find((p) => p !== null) ?? null;
    if (problem) return fail(`managed install-hooks: the copy in ${root} can be changed by others (${problem}); fix its folders' owner and mode, then run install-hooks again. The hooks file was not changed.`);
    lines.push(copied.length ? `copied the gate to ${scripts} (${copied.length} file${copied.length === 1 ? '' : 's'} changed)` : `the copy in ${scripts} is up to date`);
    const mapLines = map ? writeCapabilityMap(capabilityMapPath(platform), map, platform) : [];
    lines.push(...mapLines);

    const entries: GateEntries = {
      beforeMCPExecution: { command: hookCommand(node, scriptPaths.pre), timeout: GATE_TIMEOUT_S, failClosed: true },
      afterMCPExecution: { command: hookCommand(node, scriptPaths.after), timeout: GATE_TIMEOUT_S },
    };
    const was = readHooksFile(hooksPath);
    const previous = readMarker(orgMarkerPath(platform));
    let createdFile = previous?.created_file ?? false;
    let createdEvents = previous?.created_events ?? [];
    if (was.text === null) {
      makeFolders(dirname(hooksPath));
      writeKeeping(hooksPath, newHooksText(entries), { mode: 0o644, uid: 0, gid: 0 });
      createdFile = true;
      createdEvents = ['beforeMCPExecution', 'afterMCPExecution'];
      lines.push(`created ${hooksPath} with the gate's two entries (beforeMCPExecution with failClosed, afterMCPExecution)`);
    } else {
      const edited = addGateEntries(was.text, entries, scripts);
      if (edited.kind === 'refused') return fail(`managed install-hooks: ${hooksPath} ${edited.reason}; it was left as it is (fix it, then run install-hooks again).`);
      createdEvents = [...new Set([...createdEvents, ...edited.createdEvents])];
      if (edited.changed) writeKeeping(hooksPath, edited.text, was);
      lines.push(edited.changed ? `added the gate's entries to ${hooksPath} (every other entry kept as it was)` : `${hooksPath} already holds the gate's entries`);
    }
    const marker: Marker = { version: o.version, node, files: Object.fromEntries([...files].map(([n, d]) => [n, sha256(d)])), hooks_file: hooksPath, created_file: createdFile, created_events: createdEvents };
    const text = `${JSON.stringify(marker, null, 2)}\n`;
    const markerPath = orgMarkerPath(platform);
    let markerSame = false;
    try { markerSame = readFileSync(markerPath, 'utf8') === text; } catch { /* none yet */ }
    if (!markerSame) {
      writeFileAtomic(markerPath, text, { mode: 0o644 });
      chmodSync(markerPath, 0o644);
    } else if (statSync(hooksPath).mtimeMs > statSync(markerPath).mtimeMs) {
      // The hooks file changed since (another tool's edit): the marker is made newer, or the plugin's hooks keep checking too.
      const now = new Date();
      utimesSync(markerPath, now, now);
      markerSame = false;
    }
    const nothing = !copied.length && !mapLines.some((l) => l.startsWith('wrote')) && markerSame && lines.some((l) => l.includes('already holds'));
    lines.push(nothing ? 'The organization\'s gate was already in place: nothing changed.' : `The organization's gate ${o.version} is in place: Cursor runs it for every MCP call, and blocks the call when it fails.`);
    return { code: 0, stdout: `${lines.join('\n')}\n`, stderr: '' };
  } catch (error) {
    return fail(`managed install-hooks: failed: ${(error as Error).message}`);
  }
}

export function removeHooks(o: { platform?: NodeJS.Platform }): ManagedResult {
  const platform = o.platform ?? process.platform;
  if (!isAdministrator(platform)) return notAdmin('remove-hooks', platform);
  const markerPath = orgMarkerPath(platform);
  const marker = readMarker(markerPath);
  const hooksPath = enterpriseHooksPath(platform);
  const scripts = orgScriptsDir(platform);
  const lines: string[] = [];
  try {
    // The marker first: the plugin's own hooks check AgentStack's calls again from this moment.
    rmSync(markerPath, { force: true });
    const was = readHooksFile(hooksPath);
    if (was.text !== null) {
      const edited = removeGateEntries(was.text, scripts, marker?.created_events ?? []);
      if (edited.kind === 'refused') return fail(`managed remove-hooks: ${hooksPath} ${edited.reason}; it was left as it is.`);
      if (edited.changed && marker?.created_file && onlyEmptyHooks(edited.text)) {
        rmSync(hooksPath, { force: true });
        lines.push(`removed ${hooksPath} (install had created it, and nothing else is in it)`);
      } else if (edited.changed) {
        writeKeeping(hooksPath, edited.text, was);
        lines.push(`took the gate's entries out of ${hooksPath} (every other entry kept as it was)`);
      } else lines.push(`${hooksPath} holds no entry of the gate`);
    }
    if (removeCapabilityMap(capabilityMapPath(platform), platform)) lines.push(`removed the capability map ${capabilityMapPath(platform)}`);
    const removed = removeCopy(orgGateDir(platform), scripts);
    lines.push(removed.length ? `removed the copy in ${orgGateDir(platform)}` : 'there was no copy to remove');
    lines.push('The organization\'s gate is removed: the organization\'s rules now hold only while the plugin\'s own hooks run.');
    return { code: 0, stdout: `${lines.join('\n')}\n`, stderr: '' };
  } catch (error) {
    return fail(`managed remove-hooks: failed: ${(error as Error).message}`);
  }
}

function onlyEmptyHooks(text: string): boolean {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const keys = Object.keys(value);
    const hooks = value.hooks as Record<string, unknown> | undefined;
    return keys.every((k) => k === 'version' || k === 'hooks') && (!hooks || Object.keys(hooks).length === 0);
  } catch {
    return false;
  }
}
