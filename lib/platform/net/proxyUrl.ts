/**
 * Proxy settings as undici's EnvHttpProxyAgent reads them (HTTPS_PROXY, NO_PROXY), checked before use. Pure: no
 * HTTP client here, so the hooks can validate a proxy setting without loading one.
 */
import { PluginError } from '../errors.js';

/** A proxy URL: http:// or https://, a host, nothing after the port. Returns it normalized. */
export function parseProxyUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new PluginError('invalid_config', `${source} is not a URL (expected http://host:port): ${JSON.stringify(maskUrlCredentials(value).slice(0, 120))}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new PluginError('invalid_config', `${source} must be an http:// or https:// proxy URL (got ${url.protocol}//${url.host})`);
  }
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) {
    throw new PluginError('invalid_config', `${source} must be only scheme, host and port (no path, query or fragment)`);
  }
  return url.href.replace(/\/$/, '');
}

const NO_PROXY_ENTRY = /^(\*|\*?\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*(:\d{1,5})?|\[[0-9a-f:.]+\](:\d{1,5})?|[0-9a-f:]+)$/i;

/** A NO_PROXY list: host names, `.domain`, `*.domain`, IP addresses, each with an optional `:port`, or `*`; comma or space separated. */
export function parseNoProxy(value: string, source: string): string {
  const entries = value.split(/[,\s]+/).filter(Boolean);
  if (!entries.length) throw new PluginError('invalid_config', `${source} must name at least one host (or *)`);
  const bad = entries.find((e) => !NO_PROXY_ENTRY.test(e));
  if (bad !== undefined) throw new PluginError('invalid_config', `${source} holds ${JSON.stringify(bad.slice(0, 60))}, which is not a host name, IP address or *`);
  return entries.join(',');
}

/**
 * The URL with its password (and a user name alone) replaced by `***`, for showing a proxy setting. URL parsers take
 * the user information up to the LAST `@`, and a password may hold `@`, spaces, `/` or `#` (or make the URL invalid,
 * when it is shown in an error): everything between the scheme and the last `@` is masked but a user name.
 */
export function maskUrlCredentials(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  if (at < scheme.length) return value;
  const userinfo = value.slice(scheme.length, at);
  const colon = userinfo.search(/[:/?#\s]/);
  const user = colon > 0 && userinfo[colon] === ':' ? `${userinfo.slice(0, colon)}:` : '';
  return `${scheme}${user}***${value.slice(at)}`;
}
