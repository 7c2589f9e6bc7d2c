/** Helpers for tests that drive the reference core over real HTTP (no mocks). */
import { CLIENT_ID, DEVICE_GRANT, OAUTH_ROUTES } from './oauth.js';

/** RFC 8628's device authorization response: the same shape the plugin reads. */
export interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

export async function form(url: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { raw: text };
  }
  return { status: res.status, body, headers: res.headers };
}

export async function startDevice(baseUrl: string, scope = 'openid offline_access profile:read projects:read actions:read actions:execute data:read', extra: Record<string, string> = {}): Promise<DeviceStart> {
  const { status, body } = await form(`${baseUrl}${OAUTH_ROUTES.device_authorization}`, { client_id: CLIENT_ID, scope, resource: `${baseUrl}/mcp`, ...extra });
  if (status !== 200) throw new Error(`device authorization failed: ${status} ${JSON.stringify(body)}`);
  return body as unknown as DeviceStart;
}

export function pollToken(baseUrl: string, deviceCode: string) {
  return form(`${baseUrl}${OAUTH_ROUTES.token}`, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: CLIENT_ID, resource: `${baseUrl}/mcp` });
}

export function refresh(baseUrl: string, refreshToken: string) {
  return form(`${baseUrl}${OAUTH_ROUTES.token}`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID, resource: `${baseUrl}/mcp` });
}

export function decodeJwt(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A tiny cookie jar + manual redirect following, enough for the verification pages. */
export class Browserish {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly baseUrl: string) {}

  private store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Requests `url`, following redirects; returns the final status, URL and HTML. */
  async go(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ status: number; url: string; html: string }> {
    let target = new URL(url, this.baseUrl).href;
    let method = init.method ?? (init.form ? 'POST' : 'GET');
    let body: URLSearchParams | undefined = init.form ? new URLSearchParams(init.form) : undefined;
    for (let hop = 0; hop < 15; hop++) {
      const res = await fetch(target, {
        method,
        redirect: 'manual',
        headers: {
          cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          origin: this.baseUrl,
          accept: 'text/html',
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body,
      });
      this.store(res.headers);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        target = new URL(location, target).href;
        method = 'GET';
        body = undefined;
        continue;
      }
      return { status: res.status, url: target, html: await res.text() };
    }
    throw new Error('too many redirects');
  }
}

/** The hidden inputs of the first form in `html` (name -> value). */
export function hiddenInputs(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(m[0])?.[1];
    const value = /value="([^"]*)"/.exec(m[0])?.[1] ?? '';
    if (name) out[name] = value;
  }
  return out;
}

/** The action attribute of the form with `id`, or of the first form. */
export function formAction(html: string, id?: string): string {
  const re = id ? new RegExp(`<form[^>]*id="${id}"[^>]*action="([^"]*)"|<form[^>]*action="([^"]*)"[^>]*id="${id}"`) : /<form[^>]*action="([^"]*)"/;
  const m = re.exec(html);
  const action = m?.[1] ?? m?.[2];
  if (!action) throw new Error('form not found');
  return action.replace(/&amp;/g, '&');
}
