/**
 * Approving a device sign-in through oidc-provider's own pages (its device code input and confirm pages, then its
 * development login and consent pages), either in Chromium or by submitting the same forms over plain HTTP with a
 * cookie jar. Nothing here knows the plugin; the pages are the provider's, unchanged.
 */
import type { Browser } from 'playwright-core';

const LOGIN = { login: 'person@example.org', password: 'any password' };

/** In a real browser: clicks through the provider's pages; resolves with the final page's heading. */
export async function approveInBrowser(browser: Browser, verificationUriComplete: string, screenshot?: string): Promise<string> {
  const page = await browser.newPage();
  // The provider's pages import a web font; this machine has no network beyond loopback.
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  try {
    await page.goto(verificationUriComplete, { waitUntil: 'domcontentloaded' });
    // The link carries the code: the provider's callback page submits it by itself and shows the confirm page; a
    // link without it shows the code input first.
    await page.waitForSelector('form[id="op.deviceConfirmForm"], form[id="op.deviceInputForm"]', { state: 'attached' });
    if (await page.$('form[id="op.deviceInputForm"]')) await page.click('button[form="op.deviceInputForm"]');
    await page.waitForSelector('form[id="op.deviceConfirmForm"]', { state: 'attached' });
    await page.click('button[autofocus][form="op.deviceConfirmForm"]');
    await page.waitForSelector('input[name=login]');
    await page.fill('input[name=login]', LOGIN.login);
    await page.fill('input[name=password]', LOGIN.password);
    await page.click('button.login-submit');
    await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
    await page.click('button.login-submit');
    await page.waitForSelector('h1:has-text("Sign-in Success")');
    if (screenshot) await page.screenshot({ path: screenshot });
    return (await page.textContent('h1')) ?? '';
  } finally {
    await page.close();
  }
}

interface Form { action: string; fields: Record<string, string> }

/** The first form in `html` (or the one with `id`): its action and its hidden (and prefilled) inputs. */
function formOf(html: string, id?: string): Form {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)];
  const form = forms.find((m) => !id || m[1]!.includes(`id="${id}"`));
  if (!form) throw new Error(`no form${id ? ` #${id}` : ''} on the page: ${html.slice(0, 300)}`);
  const action = /action="([^"]*)"/.exec(form[1]!)?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input\b([^>]*)>/gi)) {
    const name = /name="([^"]*)"/.exec(input[1]!)?.[1];
    const value = /value="([^"]*)"/.exec(input[1]!)?.[1];
    if (name && value !== undefined) fields[name] = value.replace(/&#x2F;/g, '/').replace(/&amp;/g, '&');
  }
  return { action: action.replace(/&amp;/g, '&'), fields };
}

/** Over plain HTTP, the same forms a person submits, redirects followed by hand, cookies kept. Returns the last page. */
export async function approveOverHttp(verificationUriComplete: string): Promise<string> {
  const jar = new Map<string, string>();
  async function go(url: string, init: { method?: string; body?: URLSearchParams } = {}): Promise<{ url: string; html: string }> {
    for (let hops = 0; hops < 10; hops += 1) {
      const res = await fetch(url, {
        method: init.method ?? 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: init.body,
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, ...rest] = pair!.split('=');
        if (/expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name!.trim());
        else jar.set(name!.trim(), rest.join('='));
      }
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).href;
        init = {};
        continue;
      }
      if (res.status !== 200) throw new Error(`${url} answered HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return { url, html: await res.text() };
    }
    throw new Error('too many redirects');
  }
  async function submit(page: { url: string; html: string }, id: string | undefined, extra: Record<string, string> = {}) {
    const form = formOf(page.html, id);
    return go(new URL(form.action, page.url).href, { method: 'POST', body: new URLSearchParams({ ...form.fields, ...extra }) });
  }
  // What the browser would do on each page the provider serves: its auto-submitting callback form, the code input,
  // the confirm page, the login, the consent; then its success page.
  let page = await go(verificationUriComplete);
  for (let step = 0; step < 8; step += 1) {
    if (page.html.includes('Sign-in Success')) return 'Sign-in Success';
    if (page.html.includes('document.forms[0].submit()')) page = await submit(page, undefined);
    else if (page.html.includes('class="red"')) throw new Error(`the provider reports an error at ${page.url}: ${/<p class="red">([^<]*)/.exec(page.html)?.[1]}`);
    else if (page.html.includes('id="op.deviceInputForm"')) page = await submit(page, 'op.deviceInputForm');
    else if (page.html.includes('id="op.deviceConfirmForm"')) page = await submit(page, 'op.deviceConfirmForm');
    else if (page.html.includes('name="prompt" value="login"')) page = await submit(page, undefined, LOGIN);
    else if (page.html.includes('name="prompt" value="consent"')) page = await submit(page, undefined);
    else throw new Error(`an unexpected page at ${page.url}: ${page.html.slice(0, 500)}`);
  }
  throw new Error('the approval did not reach the success page');
}
