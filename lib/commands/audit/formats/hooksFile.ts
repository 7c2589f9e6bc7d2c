/**
 * A plugin's hooks document read into its commands: `{"version": 1, "hooks": {"<event>": [{"command": …}]}}`, where
 * `version` may be left out (it defaults to 1) and an entry may be a prompt hook (`{"type": "prompt", "prompt": …}`,
 * which asks the model instead of running a process). Pure.
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

export type HooksRead = { problems: string[]; commands: HookCommand[]; prompts: number };

const ANCHORED = /\$\{CURSOR_PLUGIN_ROOT\}\/([^"'\s]+)/;
const RELATIVE = /(?:^|[\s"'])\.\/([^"'\s]+)/;

export function readHooks(doc: unknown, where = 'hooks.json'): HooksRead {
  const problems: string[] = [];
  const commands: HookCommand[] = [];
  let prompts = 0;
  if (!isObject(doc) || !isObject(doc.hooks)) return { problems: [`${where} must be {"version": 1, "hooks": {…}}`], commands, prompts };
  if (doc.version !== undefined && doc.version !== 1) problems.push(`${where} "version" must be 1`);
  for (const [event, list] of Object.entries(doc.hooks)) {
    if (!Array.isArray(list)) { problems.push(`${where} "${event}" must be a list`); continue; }
    for (const hook of list) {
      const type = isObject(hook) ? hook.type ?? 'command' : null;
      if (type === 'prompt') {
        if (typeof hook!.prompt === 'string' && hook!.prompt.trim()) prompts += 1;
        else problems.push(`${where} "${event}" has a prompt hook without a "prompt"`);
        continue;
      }
      if (type !== 'command') {
        problems.push(`${where} "${event}" has an entry of type ${JSON.stringify(type)?.slice(0, 40)}: only "command" and "prompt" run`);
        continue;
      }
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
  return { problems, commands, prompts };
}
