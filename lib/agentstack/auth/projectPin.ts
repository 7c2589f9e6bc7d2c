/**
 * The tenant project pin: `AGENTSTACK_PROJECT_ID`, else the `agentstack-project` file. Only an integer > 1 is a pin
 * (project 1 is the shared ecosystem project, never a tenant).
 */
import { PluginError } from '../../platform/errors.js';
import { parseProjectId } from '../mcpJson/entry.js';
import { SECRET_FILE_MODE, readTextIfExists, removeIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';

export interface ProjectPin {
  projectId: number | null;
  source: 'env' | 'file' | 'none';
}

function invalid(value: string, source: string): PluginError {
  return new PluginError('invalid_config', `${source} must be a project id, an integer greater than 1 (got ${JSON.stringify(value.slice(0, 40))}); project 1 is shared and cannot be pinned`);
}

export function readProjectPin(env: NodeJS.ProcessEnv, pinPath: string): ProjectPin {
  const fromEnv = env.AGENTSTACK_PROJECT_ID?.trim();
  if (fromEnv) {
    const id = parseProjectId(fromEnv);
    if (id === null) throw invalid(fromEnv, 'AGENTSTACK_PROJECT_ID');
    return { projectId: id, source: 'env' };
  }
  const text = readTextIfExists(pinPath)?.trim();
  if (!text) return { projectId: null, source: 'none' };
  const id = parseProjectId(text);
  if (id === null) throw invalid(text, pinPath);
  return { projectId: id, source: 'file' };
}

/** Writes the pin file (mode 0600), or removes it for `null`. */
export function writeProjectPin(pinPath: string, projectId: number | null): void {
  if (projectId === null) {
    removeIfExists(pinPath);
    return;
  }
  if (parseProjectId(projectId) === null) throw invalid(String(projectId), 'The project pin');
  writeFileAtomic(pinPath, `${projectId}\n`, { mode: SECRET_FILE_MODE });
}
