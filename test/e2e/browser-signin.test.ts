// The main job end to end, as a person does it: device-code prints a code, a real Chromium opens the verification
// page, signs in as the test account and confirms (or denies) through the core's real pages.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { httpRequest } from '../../lib/platform/net/http.js';
import { chromiumUnavailableReason, launchChromium } from '../helpers/browser.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { spawnJsonLines } from '../helpers/spawnJson.js';
import { baseChildEnv } from '../helpers/platform.js';
import { notRunWhen } from '../helpers/notRun.js';

const DEVICE_CODE = join(REPO_ROOT, 'hooks/scripts/device-code.mjs');
const OUTPUT_DIR = join(REPO_ROOT, 'test-output');
const unavailable = chromiumUnavailableReason();
if (unavailable && process.env.CI) throw new Error(`The real-browser test must run in CI: ${unavailable}`);
if (unavailable) console.warn(`[browser-signin] skipped: ${unavailable}`);

describe('device-code sign-in through a real browser', notRunWhen(unavailable), () => {
  let core: RunningCore;
  beforeAll(async () => {
    core = await startCore({ interval: 1 });
    mkdirSync(OUTPUT_DIR, { recursive: true });
  });
  afterAll(() => core?.close());

  async function signInThroughBrowser(decision: 'confirm' | 'deny') {
    const home = tempDir('agentstack-browser-');
    const env = { ...baseChildEnv(), HOME: home.path, AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_CURSOR_DIR: home.path };
    const run = spawnJsonLines(DEVICE_CODE, ['--json', '--no-browser'], env);
    const browser = await launchChromium();
    try {
      const started = await run.waitFor((e) => e.event === 'device_code');
      const page = await browser.newPage();
      await page.goto(String(started.verification_uri_complete));
      expect(await page.textContent('#user-code')).toBe(started.user_code);
      await page.click('button[name=confirm]');
      const account = core.accounts[0]!;
      await page.fill('#email', account.email);
      await page.fill('#password', account.password);
      await page.click('button[name=login]');
      await page.click(`button[name=${decision}]`);
      await page.waitForSelector(decision === 'confirm' ? '#success' : '#denied');
      await page.screenshot({ path: join(OUTPUT_DIR, `browser-signin-${decision}.png`) });
      const final = await run.waitFor((e) => e.event === 'authorized' || e.event === 'error', 30_000);
      return { final, exit: await run.exited, home, run };
    } finally {
      await browser.close();
    }
  }

  it('confirming in the browser signs in, and the Bearer written to mcp.json is accepted by /mcp', async () => {
    const { final, exit, home, run } = await signInThroughBrowser('confirm');
    try {
      expect(final).toMatchObject({ event: 'authorized', server_url: core.mcpUrl });
      expect(exit).toBe(0);
      const config = JSON.parse(readFileSync(join(home.path, 'mcp.json'), 'utf8'));
      const authorization = config.mcpServers.agentstack.headers.Authorization as string;
      expect(authorization).toMatch(/^Bearer \S{20,}$/);
      const res = await httpRequest({
        url: core.mcpUrl,
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser-test', version: '1' } } }),
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain('agentstack');
      const token = authorization.slice('Bearer '.length);
      expect(run.stdout() + run.stderr()).not.toContain(token);
    } finally {
      home.cleanup();
    }
  }, 60_000);

  it('denying in the browser ends with access_denied', async () => {
    const { final, exit, home } = await signInThroughBrowser('deny');
    try {
      expect(final).toMatchObject({ event: 'error', error: 'access_denied' });
      expect(exit).toBe(1);
    } finally {
      home.cleanup();
    }
  }, 60_000);
});
