import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt, pollToken, startDevice } from '../../core/testing.js';
import { CHROMIUM_PATH, chromiumUnavailableReason } from '../helpers/browser.js';
import { notRunWhen } from '../helpers/notRun.js';

const CHROMIUM = CHROMIUM_PATH;
const ARGS = ['--headless', '--no-proxy-server', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

let core: RunningCore;
beforeAll(async () => {
  core = await startCore({ interval: 1, faults: { enforceInterval: false } });
});
afterAll(() => core.close());

// In CI a missing Chromium fails the run instead of skipping it silently.
const unavailable = chromiumUnavailableReason();
if (unavailable && process.env.CI) throw new Error(`The browser smoke test must run in CI: ${unavailable}`);
if (unavailable) console.warn(`[core.browser] skipped: ${unavailable}`);

describe('verification pages in a real browser (smoke)', notRunWhen(unavailable), () => {
  it('verification_uri_complete -> confirm -> login -> allow -> success; token issued for that account', async () => {
    const dev = await startDevice(core.baseUrl);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(dev.verification_uri_complete!);
      expect(await page.textContent('#user-code')).toBe(dev.user_code);
      await page.click('button[name=confirm]');
      await page.fill('#email', 'ops@agentstack.test');
      await page.fill('#password', 'agentstack-ops');
      await page.click('button[name=login]');
      await page.click('button[name=confirm]');
      await page.waitForSelector('#success');
      expect(await page.textContent('main')).toContain('Device connected. You can close this window and return to Cursor.');
    } finally {
      await browser.close();
    }
    const tok = await pollToken(core.baseUrl, dev.device_code);
    expect(decodeJwt(String(tok.body.access_token)).email).toBe('ops@agentstack.test');
  });
});
