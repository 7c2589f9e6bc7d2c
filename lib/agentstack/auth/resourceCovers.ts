/**
 * Whether RFC 9728 metadata naming `resource` may be used for `mcpUrl`: the MCP SDK's `checkResourceAllowed` rule
 * (same origin, the MCP URL's path at or under the resource's path, segment by segment), plus no query or fragment;
 * unlike the SDK, a resource with a trailing slash (`…/mcp/`) covers the same path without one. Metadata at the root location
 * names the origin (RFC 9728 §3.3 ties `resource` to the URL it was fetched from), which covers `<origin>/mcp`.
 * No dependencies: the hooks read it when they match a stored credential to a server.
 */
export function resourceCovers(resource: string, mcpUrl: string): boolean {
  let named: URL;
  let wanted: URL;
  try {
    named = new URL(resource);
    wanted = new URL(mcpUrl);
  } catch {
    return false;
  }
  if (named.origin !== wanted.origin || named.search || named.hash) return false;
  const slash = (p: string) => (p.endsWith('/') ? p : `${p}/`);
  return slash(wanted.pathname).startsWith(slash(named.pathname));
}
