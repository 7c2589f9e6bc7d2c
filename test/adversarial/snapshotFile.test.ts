/**
 * The capability snapshot file in a bad state. Fault: a folder where `agentstack-capabilities.json` should be.
 * Outcome: it costs only the card's own Capabilities line (named, with what to do); every other line of the card
 * (account, project, token) is still there, the hook exits 0 with one JSON object, and diagnose names it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { hookEnv, sessionStart, signInWith } from '../helpers/sessionStart.js';

const fixture = useCoreAndCursorDirs('agentstack-snapfile-');
const { cursorDir } = fixture;

describe('a folder where the capability snapshot should be', () => {
  it('costs only the Capabilities line of the session-start card, which names it and what to do', async () => {
    const dir = cursorDir();
    await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
    mkdirSync(join(dir, 'agentstack-capabilities.json'));
    writeFileSync(join(dir, 'agentstack-capabilities.json', 'inside'), 'x');
    const run = await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(run.code).toBe(0);
    const card = String(run.json.additional_context ?? '');
    expect(card).not.toMatch(/status check failed/);
    expect(card).toMatch(/- Account: signed in/);
    expect(card).toMatch(/- Token: valid until/);
    expect(card).toMatch(/- Capabilities: .*agentstack-capabilities\.json is a folder/);
    expect(card).toMatch(/Remove the folder .*agentstack-capabilities\.json/);
    // diagnose names it too, instead of failing as a whole
    const diagnose = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: hookEnv(dir, fixture.core.baseUrl), encoding: 'utf8' });
    const check = (JSON.parse(diagnose.stdout).checks as Array<{ id: string; status: string; summary: string }>).find((c) => c.id === 'capabilities.snapshot');
    expect(check).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/is a folder/) });
  });
});
