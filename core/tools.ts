/** The tool rows of tools/list, built once here and used by JSON-RPC tools/list and the REST mirrors. */
import { EXECUTE_TOOL } from '../lib/agentstack/server/toolNames.js';
import type { CoreState } from './state.js';

export const HELP_TOOL = 'agentstack.help';

export const EXECUTE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    steps: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Your id for this step; echoed in its result.' },
          action: { type: 'string', description: 'An action name from the catalog, e.g. projects.list.' },
          params: { type: 'object', additionalProperties: true },
        },
        required: ['id', 'action'],
        additionalProperties: false,
      },
    },
    options: {
      type: 'object',
      properties: {
        stopOnError: { type: 'boolean', description: 'Stop at the first failed step (default true).' },
        dry_run: { type: 'boolean', description: 'Validate steps without running them.' },
      },
      additionalProperties: false,
    },
  },
  required: ['steps'],
  additionalProperties: false,
} as const;

export function iconsFor(state: CoreState): Array<{ src: string; mimeType: string; sizes: string[] }> | undefined {
  if (state.faults.noIcons) return undefined;
  return [{ src: `${state.baseUrl}/mcp/icon`, mimeType: 'image/png', sizes: ['64x64'] }];
}

export interface ToolRow {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: Array<{ src: string; mimeType: string; sizes: string[] }>;
}

export function executeToolRow(state: CoreState, withIcons = true): ToolRow {
  const icons = withIcons ? iconsFor(state) : undefined;
  return {
    name: EXECUTE_TOOL,
    title: 'AgentStack execute',
    description:
      `Run one or more AgentStack actions in order. Each step names an action from the catalog at ${state.baseUrl}/mcp/actions ` +
      '(e.g. system.ping, auth.get_profile, projects.list) with optional params.',
    inputSchema: EXECUTE_INPUT_SCHEMA as unknown as Record<string, unknown>,
    annotations: { title: 'AgentStack execute', openWorldHint: true },
    ...(icons ? { icons } : {}),
  };
}

function helpToolRow(state: CoreState): ToolRow {
  const icons = iconsFor(state);
  return {
    name: HELP_TOOL,
    title: 'AgentStack help',
    description: 'Short help on how to use agentstack.execute.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
    ...(icons ? { icons } : {}),
  };
}

/** One page of tools/list (the `secondTool` fault adds a tool, possibly on a second page). */
export function toolsListPage(state: CoreState, cursor?: string): { tools: ToolRow[]; nextCursor?: string; actions_url: string } {
  const actions_url = `${state.baseUrl}/mcp/actions`;
  const mode = state.faults.secondTool;
  if (mode === 'page2') {
    if (cursor === 'page2') return { tools: [helpToolRow(state)], actions_url };
    return { tools: [executeToolRow(state)], nextCursor: 'page2', actions_url };
  }
  const tools = [executeToolRow(state)];
  if (mode === 'same-page') tools.push(helpToolRow(state));
  return { tools, actions_url };
}

/** Every tool row, all pages joined (the REST mirrors have no paging). */
export function allToolRows(state: CoreState): ToolRow[] {
  const first = toolsListPage(state);
  return first.nextCursor ? [...first.tools, ...toolsListPage(state, first.nextCursor).tools] : first.tools;
}
