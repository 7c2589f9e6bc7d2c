/**
 * tools/list, the careful way: every page behind `nextCursor` is followed (capped, a repeated cursor stops the
 * walk), pages are requested with a loose schema, and each tool is validated here, so one malformed tool becomes a
 * reported problem instead of an exception that hides the rest of the surface.
 */
import * as z from 'zod/mini';
import { quoteShort } from '../../platform/errors.js';
import { IconSchema } from '../../schemas/server.js';
import type { ToolSeen, ToolsWalk } from './types.js';

/** What we ask the SDK to accept for a tools/list result: anything that is an object. */
export const LooseResultSchema = z.looseObject({});

/** SEP-986 tool names. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export const DEFAULT_MAX_PAGES = 20;

/** The problems of one icons array (empty = fine); `undefined` icons are reported by the caller. */
export function iconProblems(icons: unknown): string[] {
  if (!Array.isArray(icons)) return ['icons is not an array'];
  if (icons.length === 0) return ['icons is empty'];
  const problems: string[] = [];
  icons.forEach((icon, i) => {
    if (!IconSchema.safeParse(icon).success) problems.push(`icons[${i}] has no string src`);
  });
  return problems;
}

/** Validates one raw tool row; never throws. */
export function inspectTool(raw: unknown, page: number): ToolSeen {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { page, name: null, problems: ['tool is not an object'], icons: undefined };
  const tool = raw as Record<string, unknown>;
  const problems: string[] = [];
  const name = typeof tool.name === 'string' ? quoteShort(tool.name, 130) : null;
  if (name === null) problems.push('name is missing or not a string');
  else if (!TOOL_NAME.test(tool.name as string)) problems.push(`name ${JSON.stringify(name)} is not a valid tool name ([A-Za-z0-9_.-], 1-128)`);
  const schema = tool.inputSchema as { type?: unknown } | undefined;
  if (!schema || typeof schema !== 'object' || schema.type !== 'object') problems.push('inputSchema is missing or not {type: "object"}');
  if (tool.description !== undefined && typeof tool.description !== 'string') problems.push('description is not a string');
  if (tool.icons !== undefined) problems.push(...iconProblems(tool.icons));
  return { page, name, problems, icons: tool.icons };
}

/** Follows every page; `requestPage` performs one tools/list (with its own session handling). */
export async function walkToolsList(
  requestPage: (cursor: string | undefined, page: number) => Promise<unknown>,
  maxPages = DEFAULT_MAX_PAGES,
): Promise<ToolsWalk> {
  const walk: ToolsWalk = { pages: 0, tools: [], rows: [], actionsUrls: [] };
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = walk.pages + 1;
    const result = (await requestPage(cursor, page)) as Record<string, unknown>;
    walk.pages = page;
    walk.actionsUrls.push(typeof result.actions_url === 'string' ? quoteShort(result.actions_url, 300) : null);
    if (!Array.isArray(result.tools)) {
      walk.stopped = `page ${page} has no tools array`;
      return walk;
    }
    for (const raw of result.tools) {
      walk.rows.push(raw);
      walk.tools.push(inspectTool(raw, page));
    }
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return walk;
    if (typeof next !== 'string') {
      walk.stopped = `page ${page} has a nextCursor that is not a string`;
      return walk;
    }
    if (seenCursors.has(next)) {
      walk.stopped = `page ${page} repeats the cursor ${JSON.stringify(quoteShort(next, 40))}; the server's paging loops`;
      return walk;
    }
    if (page >= maxPages) {
      walk.stopped = `still a nextCursor after ${maxPages} pages; stopped following it`;
      return walk;
    }
    seenCursors.add(next);
    cursor = next;
  }
}
