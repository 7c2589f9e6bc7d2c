/**
 * Whether RFC 9728 metadata naming `resource` may be used for `mcpUrl`: the MCP SDK's rule (`checkResourceAllowed`:
 * same origin, the MCP URL's path at or under the resource's path, segment by segment), plus no query or fragment.
 * Metadata at the root location names the origin (RFC 9728 §3.3 ties `resource` to the URL it was fetched from),
 * which covers `<origin>/mcp`. No dependencies: the hooks read it when they match a stored credential to a server.
 */
import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';

export function resourceCovers(resource: string, mcpUrl: string): boolean {
  try {
    const named = new URL(resource);
    if (named.search || named.hash) return false;
    return checkResourceAllowed({ requestedResource: mcpUrl, configuredResource: named });
  } catch {
    return false;
  }
}
