import { PluginError } from '../../platform/errors.js';
import { readWebUrl } from '../../platform/net/webUrl.js';
import { SETTING_ENV, settingFromEnv } from '../settings/variables.js';

export const DEFAULT_BASE_URL = 'https://agentstack.tech';
export const MCP_PATH = '/mcp';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/**
 * True for `https:` URLs, and `http:` only to a loopback host: the rule for the MCP URL (or base URL) itself, which
 * a local server runs on plain http. A URL a server hands us (an endpoint, a verification page) takes mayRequestFor.
 */
export function isSafeWebUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/**
 * Whether the plugin may send a request for the MCP server `mcpUrl` to `value` (a URL its metadata or challenge
 * named: `resource_metadata`, `authorization_servers`, the authorization server's endpoints): a WebUrl that is https,
 * or plain http to loopback only when the MCP URL itself is plain http on loopback. An https server must not turn
 * the plugin into a plain-http client of the person's own loopback services.
 */
export function mayRequestFor(value: string, mcpUrl: string): boolean {
  const read = readWebUrl(value);
  if (!read.ok) return false;
  if (read.parsed.protocol === 'https:') return true;
  if (!isLoopbackHost(read.parsed.hostname)) return false;
  const mcp = readWebUrl(mcpUrl);
  return mcp.ok && mcp.parsed.protocol === 'http:' && isLoopbackHost(mcp.parsed.hostname);
}

/**
 * Validates an AgentStack base URL and returns it normalized: origin plus path, no trailing slash,
 * no query or fragment. The MCP URL (`<base>/mcp`, what the server prints and mcp.json holds) is read as its base:
 * kept as given, every request would go to `<base>/mcp/mcp`. Throws `invalid_config` before any request is made.
 */
export function parseBaseUrl(value: string, source: string = SETTING_ENV['base-url'][0]): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new PluginError('invalid_config', `${source} is not a URL: ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (!isSafeWebUrl(url.href)) {
    throw new PluginError(
      'invalid_config',
      `${source} must be https://, or http:// to 127.0.0.1, ::1 or localhost (got ${url.protocol}//${url.host})`,
    );
  }
  if (url.search || url.hash) {
    throw new PluginError('invalid_config', `${source} must not carry a query or fragment`);
  }
  // Read as every URL a server hands us is (its MCP URL names the keychain entry and goes into the refresh record).
  if (!readWebUrl(value.trim()).ok) {
    throw new PluginError('invalid_config', `${source} must not hold a quote, a backslash, white space or a control character`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith(MCP_PATH) ? path.slice(0, -MCP_PATH.length) : path}`;
}

/** The base URL from the environment, or the default. */
export function resolveBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = settingFromEnv(env, 'base-url');
  return fromEnv ? parseBaseUrl(fromEnv) : DEFAULT_BASE_URL;
}

export function mcpUrlFor(baseUrl: string): string {
  return `${baseUrl}${MCP_PATH}`;
}

/** The base URL behind an AgentStack MCP URL (`<base>/mcp`), or null when `value` is not one. */
export function baseUrlFromMcpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!isSafeWebUrl(url.href) || url.search || url.hash || !readWebUrl(value).ok) return null;
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(MCP_PATH)) return null;
  return `${url.origin}${path.slice(0, -MCP_PATH.length)}`;
}

/** Percent-escapes of unreserved characters (RFC 3986 2.3), which mean the same decoded. */
const UNRESERVED_ESCAPE = /%(2[dDeE]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[fF]|7[eE])/g;

function loopbackHost(hostname: string): boolean {
  if (isLoopbackHost(hostname) || hostname.endsWith('.localhost')) return true;
  // The unspecified addresses: a connection to them reaches this machine, so a server listening on 127.0.0.1.
  if (hostname === '0.0.0.0' || hostname === '[::]') return true;
  // 127.0.0.0/8, and IPv4-mapped loopback as the URL parser writes it (`[::ffff:7f00:1]`).
  return /^127\.\d+\.\d+\.\d+$/.test(hostname) || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

/**
 * An MCP URL as compared to the ones the plugin knows: scheme, host (lower case, without a trailing dot; every
 * loopback name, and 0.0.0.0 or ::, as one), port, path (unreserved characters decoded, repeated and trailing slashes dropped); the
 * query, the fragment and any user info do not name another server. Null for what is not an http(s) URL.
 */
export function mcpUrlKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  let host = url.hostname.replace(/\.+$/, '');
  if (loopbackHost(host)) host = 'loopback';
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const path = url.pathname.replace(UNRESERVED_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(1), 16))).replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return `${url.protocol}//${host}:${port}${path}`;
}

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
