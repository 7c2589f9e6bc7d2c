// A token is issued for one server. When the person points the plugin at another one (AGENTSTACK_BASE_URL), the
// session-start hook must not send the old Bearer there: it drops it and asks for a sign-in instead.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';

let prod: RunningCore;
let staging: RunningCore;
beforeAll(async () => {
  [prod, staging] = await Promise.all([startCore({ port: 0 }), startCore({ port: 0 })]);
});
afterAll(async () => { await Promise.all([prod?.close(), staging?.close()]); });

describe('session-start when AGENTSTACK_BASE_URL names another server', () => {
  it('drops the Bearer issued for the old server and sends it nowhere', async () => {
    const dir = tempDir();
    try {
      const tokens = await prod.issueTokens();
      await signInWith(dir.path, prod.baseUrl, tokens);
      const before = Object.values(staging.counters.requests).reduce((a, b) => a + b, 0);
      const run = await sessionStart(dir.path, staging.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
      expect(run.code).toBe(0);
      const entry = JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8')).mcpServers.agentstack;
      expect(entry.url).toBe(staging.mcpUrl);
      expect(entry.headers?.Authorization).toBeUndefined();
      expect(String(run.json.additional_context)).toMatch(/Connect|agentstack-authorize/);
      // The staging server saw no request at all: nothing carried the old token there.
      expect(Object.values(staging.counters.requests).reduce((a, b) => a + b, 0)).toBe(before);
      expect(run.stdout + run.stderr).not.toContain(tokens.access_token);
    } finally {
      dir.cleanup();
    }
  });

  it("a hand-edited url: the old server's Bearer is dropped, its refresh token neither used nor cleared, nothing sent anywhere", async () => {
    const dir = tempDir();
    try {
      prod.setFaults({ accessTokenTtl: 60 });
      const tokens = await prod.issueTokens();
      prod.setFaults({ accessTokenTtl: 3600 });
      await signInWith(dir.path, prod.baseUrl, tokens);
      const mcpJson = join(dir.path, 'mcp.json');
      const config = JSON.parse(readFileSync(mcpJson, 'utf8'));
      config.mcpServers.agentstack.url = staging.mcpUrl;
      writeFileSync(mcpJson, JSON.stringify(config, null, 2));
      const total = (core: RunningCore) => Object.values(core.counters.requests).reduce((a, b) => a + b, 0);
      const [prodBefore, stagingBefore, refreshesBefore] = [total(prod), total(staging), prod.counters.refreshGrants];
      const run = await sessionStart(dir.path, '', { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
      expect(run.code).toBe(0);
      const entry = JSON.parse(readFileSync(mcpJson, 'utf8')).mcpServers.agentstack;
      expect(entry.url).toBe(staging.mcpUrl);
      expect(entry.headers?.Authorization).toBeUndefined();
      expect(total(staging)).toBe(stagingBefore);
      expect(total(prod)).toBe(prodBefore);
      expect(prod.counters.refreshGrants).toBe(refreshesBefore);
      expect(existsSync(join(dir.path, 'agentstack-refresh'))).toBe(true);
      expect(run.stdout + run.stderr).not.toContain(tokens.access_token);
    } finally {
      dir.cleanup();
    }
  });
});
