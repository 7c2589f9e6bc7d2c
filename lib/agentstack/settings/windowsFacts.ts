/**
 * What Windows' system tools say about the managed file (the registry's ProgramData folder; who may change the file
 * and its folder), kept in `agentstack-windows-managed.json` in the Cursor dir so a hook run does not start reg.exe
 * or PowerShell again: the folder for a day, a trust verdict for an hour and only while the file's and the folder's
 * stamps (size, times, inode) are unchanged. The record is the person's to write, as the plugin's own scripts are;
 * what a person who writes their own files can change is in SECURITY.md.
 */
import { dirname } from 'node:path';
import { readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { stampOf } from '../../platform/fs/fileStamps.js';
import { isObject } from '../../platform/text/isObject.js';
import { programDataFolder, windowsTrustProblem, type RunTool } from '../../platform/windows/systemInfo.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

const PLACE_MAX_AGE_MS = 24 * 3_600_000;
const TRUST_MAX_AGE_MS = 3_600_000;

interface Kept {
  programData?: { value: string; at: number };
  trust?: { key: string; distrust: string | null; at: number };
}

export interface WindowsFacts {
  programData(): string;
  trustProblem(path: string): string | null;
}

function readKept(path: string | null): Kept {
  if (!path) return {};
  try {
    const raw: unknown = JSON.parse(readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.windowsManaged }) ?? '{}');
    if (!isObject(raw)) return {};
    const kept: Kept = {};
    const place = raw.programData;
    if (isObject(place) && typeof place.value === 'string' && /^[A-Za-z]:\\/.test(place.value) && typeof place.at === 'number') kept.programData = { value: place.value, at: place.at };
    const trust = raw.trust;
    if (isObject(trust) && typeof trust.key === 'string' && (trust.distrust === null || typeof trust.distrust === 'string') && typeof trust.at === 'number') {
      kept.trust = { key: trust.key, distrust: trust.distrust, at: trust.at };
    }
    return kept;
  } catch {
    return {};
  }
}

const fresh = (at: number, now: number, maxAge: number) => at <= now && now - at < maxAge;

/** The facts, from the record when it is fresh, else from the tools (the record then rewritten; never a throw). */
export function windowsFacts(run: RunTool, recordPath: string | null, now = Date.now()): WindowsFacts {
  const kept = readKept(recordPath);
  const save = () => {
    if (!recordPath) return;
    try { writeFileAtomic(recordPath, `${JSON.stringify(kept)}\n`, { durable: false }); } catch { /* kept for the next run only */ }
  };
  return {
    programData() {
      if (kept.programData && fresh(kept.programData.at, now, PLACE_MAX_AGE_MS)) return kept.programData.value;
      kept.programData = { value: programDataFolder(run), at: now };
      save();
      return kept.programData.value;
    },
    trustProblem(path) {
      const key = JSON.stringify([path, stampOf(path), stampOf(dirname(path))]);
      if (kept.trust && kept.trust.key === key && fresh(kept.trust.at, now, TRUST_MAX_AGE_MS)) return kept.trust.distrust;
      const distrust = windowsTrustProblem([path, dirname(path)], run);
      kept.trust = { key, distrust, at: now };
      save();
      return distrust;
    },
  };
}
