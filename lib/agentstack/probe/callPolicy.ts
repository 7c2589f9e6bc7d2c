/**
 * Which tools the probe may call. A probe must cause no side effect on a server it does not recognise: it calls only
 * tools the server listed, and only on AgentStack's surface (the canonical execute tool is listed). The alias is
 * called there too, because AgentStack's contract accepts it on tools/call without listing it.
 */
import { EXECUTE_TOOL, EXECUTE_TOOL_ALIAS } from '../server/toolNames.js';
import type { ToolsWalk } from './types.js';

export interface CallDecision {
  /** Tool names to call with the ping, in order. */
  names: string[];
  /** Why nothing is called (set when `names` is empty). */
  reason?: string;
}

export function toolsToCall(walk: ToolsWalk | undefined): CallDecision {
  if (!walk) return { names: [], reason: 'tools/list did not answer, so the probe does not know which tools exist' };
  if (!walk.tools.some((t) => t.name === EXECUTE_TOOL)) {
    return { names: [], reason: `the server does not list ${EXECUTE_TOOL}; the probe calls no tool on a server that is not AgentStack's` };
  }
  return { names: [EXECUTE_TOOL_ALIAS, EXECUTE_TOOL] };
}
