/**
 * A failed catalog fetch is neither silent nor repeated at every start: session start records it beside the
 * snapshot, the card names it and what to do, and the next starts within 15 minutes do not fetch again.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';

let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  core = await startCore({ port: 0 });
  tmp = tempDir('agentstack-snapfail-');
});
afterAll(async () => {
  await core?.close();
  tmp?.cleanup();
});

const catalogRequests = () => core.counters.requests['GET /mcp/actions'] ?? 0;
const card = async (dir: string) => String((await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).json.additional_context);

describe('a failed capability snapshot', () => {
  it('is named on the card, recorded, and not fetched again for 15 minutes; a success clears the record', async () => {
    const dir = join(tmp.path, 'a');
    mkdirSync(dir);
    await signInWith(dir, core.baseUrl, await core.issueTokens());
    core.setFaults({ endpointFaults: { actions: { kind: '5xx' } } });
    try {
      const before = catalogRequests();
      const first = await card(dir);
      expect(catalogRequests()).toBe(before + 1);
      expect(first).toMatch(/- Capabilities: the last catalog fetch failed at \d\d:\d\dZ \(.*HTTP 503.*\); tried again after \d\d:\d\dZ/);
      expect(first).toMatch(/There is no capability snapshot, so AgentStack calls are not checked: GET \/mcp\/actions failed\. Check the server .*--online/);
      const record = JSON.parse(readFileSync(join(dir, 'agentstack-capabilities-failed.json'), 'utf8'));
      expect(record).toMatchObject({ server_url: `${core.baseUrl}/mcp`, message: expect.stringContaining('HTTP 503') });

      const second = await card(dir);
      expect(catalogRequests()).toBe(before + 1);
      expect(second).toMatch(/- Capabilities: the last catalog fetch failed/);

      // 14 minutes later (the record dated back) it still waits, and the card names when it will try: 15 min after.
      const failedAt = Date.now() - 14 * 60_000;
      writeFileSync(join(dir, 'agentstack-capabilities-failed.json'), JSON.stringify({ ...record, at: new Date(failedAt).toISOString() }));
      const waiting = await card(dir);
      expect(catalogRequests()).toBe(before + 1);
      expect(waiting).toContain(`tried again after ${new Date(failedAt + 15 * 60_000).toISOString().slice(11, 16)}Z`);

      // 16 minutes later, the next start tries again, and a success removes the record.
      writeFileSync(join(dir, 'agentstack-capabilities-failed.json'), JSON.stringify({ ...record, at: new Date(Date.now() - 16 * 60_000).toISOString() }));
      core.setFaults({ endpointFaults: {} });
      const third = await card(dir);
      expect(catalogRequests()).toBe(before + 2);
      expect(third).toMatch(/- Capabilities: \d+ actions in the snapshot$/m);
      expect(existsSync(join(dir, 'agentstack-capabilities-failed.json'))).toBe(false);
    } finally {
      core.setFaults({ endpointFaults: {} });
    }
  });
});
