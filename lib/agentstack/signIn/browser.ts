/**
 * Opening a verification URL in the person's browser, safely: only `https:` (or plain `http:` to a loopback host when
 * the MCP URL itself is plain http on loopback), no shell metacharacters, and always through `open`'s argument vector,
 * never a shell string (the class of mcp-remote's CVE-2025-6514). No display means we do not try.
 */
import { mayRequestFor } from '../server/baseUrl.js';
import { readWebUrl } from '../../platform/net/webUrl.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { hasHiddenCharacters } from '../../platform/text/displayText.js';

export type Opener = (url: string) => Promise<void>;

/** Characters a shell would act on; harmless without a shell, but no AgentStack URL needs them. */
// eslint-disable-next-line no-control-regex
const SHELL_METACHARACTERS = /[\s\u0000-\u001f\u007f`$;|<>"'\\(){}*!]/;

/**
 * True when `url` reads as a plain link: an http(s) WebUrl with no shell metacharacters, and no control, bidi or
 * zero-width character that would make the link read as something it is not. Which hosts it may point at is the
 * caller's rule: isOpenableUrl for a server's answer, the sign-in origins (lock.ts) for a running sign-in's page.
 */
export function isPlainLink(url: unknown): url is string {
  return typeof url === 'string' && !SHELL_METACHARACTERS.test(url) && !hasHiddenCharacters(url) && readWebUrl(url).ok;
}

/**
 * True when `url` may be shown as a link and opened for the MCP server `mcpUrl`: a plain link that is https, or plain
 * http to loopback only when the MCP URL itself is plain http on loopback (the rule of every request, mayRequestFor).
 */
export function isOpenableUrl(url: unknown, mcpUrl: string): url is string {
  return isPlainLink(url) && mayRequestFor(url, mcpUrl);
}

/** Throws `unsafe_url` for anything we would not open for `mcpUrl`; `what` names the URL for the person. */
export function assertOpenableUrl(url: unknown, what: string, mcpUrl: string): asserts url is string {
  if (!isOpenableUrl(url, mcpUrl)) {
    throw new PluginError(
      'unsafe_url',
      `The server sent a ${what} that is not a plain https:// link (${quoteShort(url, 80)}); refusing to show or open it. ` +
        'Check that AGENTSTACK_BASE_URL points at AgentStack.',
    );
  }
}

/** Whether a browser can be shown: macOS and Windows always; elsewhere a DISPLAY or WAYLAND_DISPLAY is needed. */
export function hasDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY?.trim() || env.WAYLAND_DISPLAY?.trim());
}

export const defaultOpener: Opener = async (url) => {
  const { default: open } = await import('open');
  const child = await open(url, { wait: false });
  child.on('error', () => {});
  child.unref();
};

export type OpenOutcome = 'opened' | 'no_display' | 'failed';

/** Opens `url` (already checked) unless there is no display; a failing opener is reported, never thrown. */
export async function openInBrowser(url: string, options: { mcpUrl: string; opener?: Opener; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): Promise<OpenOutcome> {
  assertOpenableUrl(url, 'verification URL', options.mcpUrl);
  if (!hasDisplay(options.env, options.platform)) return 'no_display';
  try {
    await (options.opener ?? defaultOpener)(url);
    return 'opened';
  } catch {
    return 'failed';
  }
}
