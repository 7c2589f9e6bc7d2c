/**
 * RFC 9728 protected-resource metadata for an MCP URL, as the MCP authorization spec and the MCP SDK's client find
 * it: where to look, and whether a document's `resource` covers the MCP URL. Shared by the sign-in's discovery and
 * the verify checks, so both accept and refuse the same documents. Pure, no I/O.
 */
import { ProtectedResourceMetadataSchema } from '../../schemas/server.js';
import { mayRequestFor, resourceCovers } from '../server/baseUrl.js';
import { readWebUrl, type WebUrl, type WebUrlProblem } from '../../platform/net/webUrl.js';

export { resourceCovers };

/**
 * Where to look, in order: the URL the 401 challenge names (the MCP authorization spec: clients MUST use it when
 * present), then RFC 9728 §3.1's well-known URL with the resource's path after the segment, then the root form.
 */
export function protectedResourceUrls(mcpUrl: string, fromChallenge?: string | null): string[] {
  const u = new URL(mcpUrl);
  const path = u.pathname.replace(/\/+$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  const wellKnown = path && path !== '/' ? [`${root}${path}`, root] : [root];
  return fromChallenge ? [fromChallenge, ...wellKnown.filter((url) => url !== fromChallenge)] : wellKnown;
}

/**
 * The `resource_metadata` URL of a `WWW-Authenticate` header (RFC 9728 §5.1), quoted or not, read as a WebUrl (its
 * canonical href) that may be requested for `mcpUrl` (https, or plain http to loopback only from a plain-http
 * loopback MCP server); null otherwise.
 */
export function challengeResourceMetadata(header: string | null | undefined, mcpUrl: string): string | null {
  if (!header) return null;
  const m = /(?:^|[\s,])resource_metadata\s*=\s*(?:"([^"]*)"|([^\s,]+))/i.exec(header);
  const value = m?.[1] ?? m?.[2];
  if (!value) return null;
  const read = readWebUrl(value);
  return read.ok && mayRequestFor(read.url, mcpUrl) ? read.url : null;
}

/** The metadata as used: `resource` is the canonical href of what the server sent (platform/net/webUrl.ts). */
export type ResourceMetadata = { resource: WebUrl; authorization_servers?: string[]; scopes_supported?: unknown } & Record<string, unknown>;

export type ResourceMetadataProblem = 'not_metadata' | 'other_resource' | 'unreadable_resource';

/**
 * Why `json` (fetched for `mcpUrl`) cannot be used, or the metadata. The `resource` is read once here, to its
 * canonical href: a value that is not one (quotes, controls, user info, a fragment, too long) is refused, never
 * repaired, and the text as sent goes no further than the refusal's message.
 */
export function readResourceMetadata(json: unknown, mcpUrl: string): { ok: true; metadata: ResourceMetadata } | { ok: false; problem: ResourceMetadataProblem; resource?: string; why?: WebUrlProblem } {
  const parsed = ProtectedResourceMetadataSchema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: 'not_metadata' };
  const read = readWebUrl(parsed.data.resource);
  if (!read.ok) return { ok: false, problem: 'unreadable_resource', resource: parsed.data.resource, why: read.problem };
  if (!resourceCovers(read.url, mcpUrl)) return { ok: false, problem: 'other_resource', resource: read.url };
  return { ok: true, metadata: { ...parsed.data, resource: read.url } as ResourceMetadata };
}
