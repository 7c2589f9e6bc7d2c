/**
 * A plugin's hooks document read into its commands: `{"version": 1, "hooks": {"<event>": [{"command": …}]}}`. Pure.
 * Which script a command runs: the path after `${CURSOR_PLUGIN_ROOT}/` (anchored), or a `./` path (relative to a
 * working directory Cursor does not document).
 */
import { isObject } from '../../../platform/text/isObject.js';

export interface HookCommand {
  event: string;
  command: string;
  /** The script the command runs, relative to the plugin root, when the command names one. */
  script: string | null;
  anchored: boolean;
  timeout: number | null;
}

export type HooksRead = { problems: string[]; commands: HookCommand[] };

const ANCHORED = /\$\{CURSOR_PLUGIN_ROOT\}\/([^"'\s]+)/;
const RELATIVE = /(?:^|[\s"'])\.\/([^"'\s]+)/;

export function readHooks(doc: unknown, where = 'hooks.json'): HooksRead {
  const problems: string[] = [];
  const commands: HookCommand[] = [];
  if (!isObject(doc) || !isObject(doc.hooks)) return { problems: [`${where} must be {"version": 1, "hooks": {…}}`], commands };
  if (doc.version !== 1) problems.push(`${where} "version" must be 1`);
  for (const [event, list] of Object.entries(doc.hooks)) {
    if (!Array.isArray(list)) { problems.push(`${where} "${event}" must be a list`); continue; }
    for (const hook of list) {
      if (!isObject(hook) || typeof hook.command !== 'string' || !hook.command.trim()) {
        problems.push(`${where} "${event}" has an entry without a "command"`);
        continue;
      }
      const anchored = ANCHORED.exec(hook.command);
      const relative = anchored ? null : RELATIVE.exec(hook.command);
      const timeout = typeof hook.timeout === 'number' && hook.timeout > 0 ? hook.timeout : null;
      if (hook.timeout !== undefined && timeout === null) problems.push(`${where} "${event}" "timeout" must be a positive number of seconds`);
      commands.push({ event, command: hook.command, script: anchored?.[1] ?? relative?.[1] ?? null, anchored: !!anchored, timeout });
    }
  }
  return { problems, commands };
}
