/**
 * The tenant project pin: `AGENTSTACK_PROJECT_ID`, else the `agentstack-project` file. Only an integer > 1 is a pin
 * (project 1 is the shared ecosystem project, never a tenant). The pin is optional: a file holding anything else is
 * ignored (the sign-in goes on without X-Project-ID) and the reader says so; a bad environment variable is refused,
 * since whoever set it asked for that project explicitly.
 */
import { PluginError } from '../../platform/errors.js';
import { parseProjectId } from '../mcpJson/entry.js';
import { SECRET_FILE_MODE, readTextIfExists, removeIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';
import { pluginCommand } from '../plugin/root.js';
import { SETTING_ENV, settingFromEnv } from '../settings/variables.js';

export interface ProjectPin {
  projectId: number | null;
  source: 'env' | 'file' | 'none';
  /** Set when the pin file holds something that is not a pin: what was found and how to fix it. */
  ignored?: string;
}

/** The one wording of the rule, for the flag, the environment variable, the file and the settings key. */
export const PIN_RULE = 'an integer greater than 1 (project 1 is shared and cannot be pinned)';
/** How a person fixes or removes the pin (the config script; the setting is the same file). */
export const PIN_FIX = `set one with \`${pluginCommand('scripts/config.mjs')} set project ID\`, or remove it with \`config unset project\``;

function invalid(value: string, source: string): PluginError {
  return new PluginError('invalid_config', `${source} must be a project id, an integer greater than 1 (got ${JSON.stringify(value.slice(0, 40))}); project 1 is shared and cannot be pinned`);
}

/** The message for a pin file that holds no pin. */
export function ignoredPinMessage(pinPath: string, text: string): string {
  return `The project pin ${pinPath} holds ${JSON.stringify(text.slice(0, 40))}, not ${PIN_RULE}; it was ignored and the sign-in goes on without a project pin. To fix it, ${PIN_FIX}.`;
}

export function readProjectPin(env: NodeJS.ProcessEnv, pinPath: string): ProjectPin {
  const fromEnv = settingFromEnv(env, 'project');
  if (fromEnv) {
    const id = parseProjectId(fromEnv);
    if (id === null) throw invalid(fromEnv, SETTING_ENV.project[0]);
    return { projectId: id, source: 'env' };
  }
  const text = readTextIfExists(pinPath, { maxBytes: STATE_FILE_MAX_BYTES.project })?.trim();
  if (!text) return { projectId: null, source: 'none' };
  const id = parseProjectId(text);
  if (id === null) return { projectId: null, source: 'none', ignored: ignoredPinMessage(pinPath, text) };
  return { projectId: id, source: 'file' };
}

/**
 * A pin as a person types it (`--project`, `config set project`): a project id, or `none` for no pin. Throws
 * `invalid_config` naming `source` otherwise.
 */
export function parsePinArgument(value: string, source: string): number | null {
  if (value.trim().toLowerCase() === 'none') return null;
  const id = parseProjectId(value);
  if (id === null) throw new PluginError('invalid_config', `${source} must be ${PIN_RULE}, or "none" (got ${JSON.stringify(value.slice(0, 40))})`);
  return id;
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

/**
 * Writes (or removes) the pin as a person asked; a folder it cannot write to is a clear `invalid_config`, not a stack
 * trace. Returns a notice when `AGENTSTACK_PROJECT_ID` overrides the file.
 */
export function savePin(env: NodeJS.ProcessEnv, pinPath: string, projectId: number | null): { notice: string | null } {
  try {
    writeProjectPin(pinPath, projectId);
  } catch (error) {
    if (error instanceof PluginError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PluginError('io', `Cannot write the project pin ${pinPath} (${code}); check that the folder is writable.`);
  }
  return { notice: settingFromEnv(env, 'project') ? 'AGENTSTACK_PROJECT_ID is set and overrides the pin file.' : null };
}
