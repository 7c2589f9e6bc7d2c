/**
 * Whether the organization's gate is in place on this machine, read without changing anything (no administrator
 * needed): the marker, the two entries in Cursor's enterprise hooks file (the pre-MCP one with failClosed), the copy
 * as installed (each file's SHA-256), who may change it, and its version against the plugin's. Shared by
 * `managed.mjs status` and diagnose-local's row.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { enterpriseHooksPath, orgGateDir, orgGateInPlace, orgMarkerPath, orgScriptsDir } from '../../agentstack/plugin/orgGate.js';
import { readMarker, sha256 } from './copy.js';
import { gateEntriesIn } from './hooksFile.js';
import { capabilityMapPath } from '../../agentstack/policy/capabilityMap.js';
import { capabilityMapStatus, type MapStatus } from './capabilities.js';
import { chainProblem } from './trust.js';

export interface GateStatus {
  /** Every part present and intact: Cursor runs the organization's gate for every MCP call, failing closed. */
  in_place: boolean;
  /** The marker is there (installed), intact or not. */
  installed: boolean;
  version: string | null;
  plugin_version: string;
  hooks_file: string;
  folder: string;
  node: string | null;
  /** What is wrong with an installed gate (empty when in place or not installed). */
  problems: string[];
  /** The organization's capability map (install-hooks --catalog): in place, how many actions, when written. */
  capability_map: MapStatus;
}

/** What holds without the organization's gate, said wherever its absence is. */
export const WITHOUT_GATE = 'the organization\'s rules stop when the plugin is turned off or its folder is removed, and a crash or timeout of its hook lets the call through';

export function gateStatus(pluginVersion: string, platform: NodeJS.Platform = process.platform): GateStatus {
  const markerPath = orgMarkerPath(platform);
  const marker = readMarker(markerPath);
  const hooksFile = enterpriseHooksPath(platform);
  const scripts = orgScriptsDir(platform);
  const base: GateStatus = { in_place: false, installed: marker !== null, version: marker?.version ?? null, plugin_version: pluginVersion, hooks_file: hooksFile, folder: orgGateDir(platform), node: marker?.node ?? null, problems: [], capability_map: capabilityMapStatus(capabilityMapPath(platform), platform) };
  if (!marker) return base;
  const problems: string[] = [];
  if (platform !== 'win32' && !orgGateInPlace(markerPath, platform, hooksFile)) {
    problems.push(markerTrusted(markerPath) ? `${hooksFile} changed after install-hooks last ran: run it again (until then the plugin's own hooks check AgentStack's calls too)` : `its marker ${markerPath} could have been written by someone other than root`);
  }
  let text: string | null = null;
  try { text = readFileSync(hooksFile, 'utf8'); } catch { problems.push(`${hooksFile} cannot be read`); }
  if (text !== null) {
    const entries = gateEntriesIn(text, scripts);
    if (!entries) problems.push(`${hooksFile} is not a hooks file Cursor can read`);
    else {
      if (!entries.beforeMCPExecution) problems.push(`${hooksFile} has no beforeMCPExecution entry of the gate`);
      else if (!entries.beforeMCPExecution.failClosed) problems.push(`the gate's beforeMCPExecution entry in ${hooksFile} lacks failClosed: true (a crash or timeout lets the call through)`);
      if (!entries.afterMCPExecution) problems.push(`${hooksFile} has no afterMCPExecution entry of the gate (AgentStack calls are not journaled)`);
    }
  }
  for (const [name, hash] of Object.entries(marker.files)) {
    const path = join(scripts, name);
    try {
      if (sha256(readFileSync(path)) !== hash) problems.push(`${path} is not the file install copied`);
    } catch {
      problems.push(`${path} is missing`);
    }
  }
  if (!existsSync(marker.node)) problems.push(`the node ${marker.node} the entries run does not exist (every MCP call is blocked)`);
  if (platform !== 'win32') {
    const problem = [scripts, hooksFile].filter(existsSync).map(chainProblem).find((p) => p !== null);
    if (problem) problems.push(`others can change it (${problem})`);
  }
  return { ...base, in_place: problems.length === 0, problems };
}

function markerTrusted(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.uid === 0 && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The one line said of the gate (status, diagnose): in place and its version, or what is wrong, or absent. */
export function gateSummary(s: GateStatus): string {
  if (!s.installed) return `not installed (an administrator runs managed.mjs install-hooks): ${WITHOUT_GATE}`;
  if (!s.in_place) return `installed but not in place: ${s.problems.join('; ')}`;
  const versions = s.version === s.plugin_version ? `version ${s.version}, the plugin's` : `version ${s.version}, the plugin is ${s.plugin_version} (run install-hooks again to match)`;
  return `in place in ${s.hooks_file} (${versions}): Cursor runs it for every MCP call, failing closed, even with the plugin turned off`;
}

/** The one line said of the capability map. */
export function mapSummary(m: MapStatus): string {
  if (m.in_place) return `in place in ${m.path} (${m.actions} actions, written ${m.written_at ?? 'at an unknown time'}): the organization's capability rules judge actions by it, not by the person's capability snapshot`;
  if (m.problem) return `not in place: ${m.problem}`;
  return `none (install-hooks --catalog installs one): ${WITHOUT_MAP}`;
}

/** What holds without the capability map, said wherever its absence is. */
export const WITHOUT_MAP = 'the organization\'s capability rules read an action\'s name and the person\'s capability snapshot, which the person can edit: an action whose name says nothing (data.query) relabelled there can slip out of them';

export function renderGateStatus(s: GateStatus, json: boolean): string {
  if (json) return `${JSON.stringify({ ...s, summary: gateSummary(s), capability_map_summary: mapSummary(s.capability_map) }, null, 2)}\n`;
  return [`The organization's gate: ${gateSummary(s)}.`, `The capability map: ${mapSummary(s.capability_map)}.`, `  hooks file  ${s.hooks_file}`, `  copy        ${s.folder}`, ...(s.node ? [`  node        ${s.node}`] : [])].join('\n') + '\n';
}
