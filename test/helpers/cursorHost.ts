/**
 * A Cursor we play ourselves, built only from what Cursor documents, on a build that drops sessionStart's
 * `additional_context` (as the IDE does). It runs the installed plugin's hooks as hooks/hooks.json declares them
 * (`${CURSOR_PLUGIN_ROOT}` expanded, through a shell, within their timeouts), calls MCP with the headers of the
 * agentstack entry in ~/.cursor/mcp.json (re-read at every call), and shows the person only what Cursor enforces:
 * the pre-MCP hook's `user_message`, and what the agent relays from a slash command's output. The session card is
 * recorded as dropped and shown to no one.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { baseChildEnv } from './platform.js';

interface HookDef { command: string; timeout?: number }
type Json = Record<string, unknown>;

export interface ShellRun { code: number | null; stdout: string; stderr: string }

/** Runs `command` through a shell, as Cursor runs hook and terminal commands, with `node` on PATH. */
export function shell(command: string, env: NodeJS.ProcessEnv, options: { stdin?: string; timeoutMs?: number; onLine?: (line: string) => void } = {}): Promise<ShellRun> {
  const child = spawn(command, { shell: true, env: { ...env, PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}` }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    pending += d;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim()) options.onLine?.(line);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin.end(options.stdin ?? '');
  const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : null;
  return new Promise((resolve) => child.on('close', (code) => {
    if (timer) clearTimeout(timer);
    resolve({ code, stdout, stderr });
  }));
}

export type CallOutcome =
  | { kind: 'blocked'; by: 'hook' | 'person' }
  | { kind: 'result'; text: string; isError: boolean }
  | { kind: 'failed'; error: string };

export interface HostOptions {
  /** The installed plugin's folder (CURSOR_PLUGIN_ROOT). */
  pluginRoot: string;
  /** The person's home: ~/.cursor is under it. */
  home: string;
  /** Cursor's own environment, passed to hooks (no secrets of ours). */
  env: Record<string, string>;
  cursorVersion?: string;
}

export class CursorHost {
  /** Everything the person saw, in order. */
  readonly person: string[] = [];
  /** Everything the agent was told (agent_message), in order. */
  readonly agent: string[] = [];
  /** The session cards this build dropped (never shown to anyone). */
  readonly dropped: string[] = [];
  private readonly hooks: Record<string, HookDef[]>;
  private readonly manifest: Json;

  constructor(private readonly options: HostOptions) {
    const manifest = JSON.parse(readFileSync(join(options.pluginRoot, '.cursor-plugin/plugin.json'), 'utf8')) as Json;
    this.manifest = manifest;
    const hooksPath = typeof manifest.hooks === 'string' ? manifest.hooks : './hooks/hooks.json';
    this.hooks = (JSON.parse(readFileSync(join(options.pluginRoot, hooksPath), 'utf8')) as { hooks: Record<string, HookDef[]> }).hooks;
  }

  /** The rules Cursor injects into every chat: the manifest's `rules` folder, `.mdc` files with `alwaysApply: true`. */
  alwaysAppliedRules(): string[] {
    const dir = join(this.options.pluginRoot, typeof this.manifest.rules === 'string' ? this.manifest.rules : 'rules');
    return readdirSync(dir).filter((f) => f.endsWith('.mdc')).map((f) => readFileSync(join(dir, f), 'utf8'))
      .filter((text) => /^---\n[\s\S]*?^alwaysApply: true$[\s\S]*?^---$/m.test(text));
  }

  get cursorDir(): string {
    return join(this.options.home, '.cursor');
  }

  private hookEnv(): NodeJS.ProcessEnv {
    return { ...baseChildEnv(), HOME: this.options.home, USERPROFILE: this.options.home, ...this.options.env, CURSOR_PLUGIN_ROOT: this.options.pluginRoot };
  }

  /** Runs every hook of `event` with `input`; the answers of those that exited 0 with one JSON object. */
  private async runHooks(event: string, input: Json): Promise<Json[]> {
    const answers: Json[] = [];
    for (const hook of this.hooks[event] ?? []) {
      const command = hook.command.replaceAll('${CURSOR_PLUGIN_ROOT}', this.options.pluginRoot);
      const run = await shell(command, this.hookEnv(), { stdin: JSON.stringify({ hook_event_name: event, cursor_version: this.options.cursorVersion ?? '3.20.17', ...input }), timeoutMs: (hook.timeout ?? 30) * 1000 });
      if (run.code !== 0) continue; // fails open, as documented
      try { answers.push(JSON.parse(run.stdout) as Json); } catch { /* invalid JSON: fails open */ }
    }
    return answers;
  }

  /** A new chat: sessionStart runs; this build drops its additional_context. */
  async startSession(): Promise<void> {
    for (const answer of await this.runHooks('sessionStart', { session_id: 's', is_background_agent: false, composer_mode: 'agent' })) {
      if (typeof answer.additional_context === 'string') this.dropped.push(answer.additional_context);
    }
  }

  /** The agentstack entry of ~/.cursor/mcp.json as Cursor reads it now. */
  entry(): { url: string; headers: Record<string, string> } {
    const config = JSON.parse(readFileSync(join(this.cursorDir, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { url: string; headers?: Record<string, string> }> };
    const entry = config.mcpServers.agentstack!;
    return { url: entry.url, headers: entry.headers ?? {} };
  }

  /**
   * The agent calls `tool` of user-agentstack: beforeMCPExecution runs first (its user_message goes to the person,
   * its agent_message to the agent); on `ask`, `decide` is the person's answer; then the call goes out with the
   * entry's headers.
   */
  async callTool(tool: string, args: Json, decide: (message: string | undefined) => boolean = () => true): Promise<CallOutcome> {
    const { url, headers } = this.entry();
    const answers = await this.runHooks('beforeMCPExecution', { tool_name: tool, tool_input: JSON.stringify(args), url, mcp_server_name: 'agentstack' });
    for (const answer of answers) {
      if (typeof answer.user_message === 'string') this.person.push(answer.user_message);
      if (typeof answer.agent_message === 'string') this.agent.push(answer.agent_message);
    }
    if (answers.some((a) => a.permission === 'deny')) return { kind: 'blocked', by: 'hook' };
    const ask = answers.find((a) => a.permission === 'ask');
    if (ask && !decide(ask.user_message as string | undefined)) return { kind: 'blocked', by: 'person' };
    const client = new Client({ name: 'cursor-host-simulation', version: '0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      const result = await client.callTool({ name: tool, arguments: args });
      const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
      return { kind: 'result', text, isError: result.isError === true };
    } catch (error) {
      return { kind: 'failed', error: (error as Error).message };
    } finally {
      await client.close().catch(() => {});
    }
  }

  /**
   * The person types `/<name>`; the agent does what the command's markdown says, in its terminal, and relays what
   * the script prints as it prints it: a device-code event's code and link, an error's message, the end. Resolves
   * when the script ends.
   */
  slashCommand(name: string): Promise<ShellRun> {
    const text = readFileSync(join(this.options.pluginRoot, 'commands', `${name}.md`), 'utf8');
    // Step 1 of the command: the plugin root is ~/.cursor/plugins/local/agentstack when the script is there.
    const root = join(this.cursorDir, 'plugins', 'local', 'agentstack');
    const line = /`(node "<root>\/[^`]+)`/.exec(text)?.[1];
    if (!line) throw new Error(`/${name} names no script to run`);
    return shell(line.replace('<root>', root), this.hookEnv(), {
      timeoutMs: 60_000,
      onLine: (raw) => {
        const event = JSON.parse(raw) as Json;
        if (event.event === 'device_code') this.person.push(`Open ${String(event.verification_uri_complete ?? event.verification_uri)} and enter the code ${String(event.user_code)}.`);
        else if (event.event === 'error') this.person.push(String(event.message));
        else if (event.event === 'authorized') this.person.push('Signed in to AgentStack.');
      },
    });
  }
}

/** The code and link a message shows the person (`open <link> and enter the code <code>`), or null. */
export function codeAndLink(message: string): { link: string; code: string } | null {
  const match = /open (\S+) and enter the code ([A-Z0-9-]+)/i.exec(message);
  return match ? { link: match[1]!, code: match[2]! } : null;
}
