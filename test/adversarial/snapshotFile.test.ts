/**
 * The capability snapshot file in a bad state. Fault: a folder where `agentstack-capabilities.json` should be.
 * Outcome: diagnose names it; session start moves it aside (nothing in it lost), says so, and writes a fresh
 * snapshot; every other line of the card (account, project, token) is still there, the hook exits 0 with one JSON
 * object.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { hookEnv, sessionStart, signInWith } from '../helpers/sessionStart.js';

const fixture = useCoreAndCursorDirs('agentstack-snapfile-');
const { cursorDir } = fixture;

describe('a folder where the capability snapshot should be', () => {
  it('is named by diagnose, then moved aside by session start (nothing in it lost) and replaced by a fresh snapshot', async () => {
    const dir = cursorDir();
    const path = join(dir, 'agentstack-capabilities.json');
    await signInWith(dir, fixture.core.baseUrl, await fixture.core.issueTokens());
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), 'x');
    // diagnose names it, instead of failing as a whole
    const diagnose = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: hookEnv(dir, fixture.core.baseUrl), encoding: 'utf8' });
    const check = (JSON.parse(diagnose.stdout).checks as Array<{ id: string; status: string; summary: string }>).find((c) => c.id === 'capabilities.snapshot');
    expect(check).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/is a folder/) });
    const run = await sessionStart(dir, fixture.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(run.code).toBe(0);
    const card = String(run.json.additional_context ?? '');
    expect(card).not.toMatch(/status check failed/);
    expect(card).toMatch(/- Account: signed in/);
    expect(card).toMatch(/- Token: valid until/);
    expect(card).toMatch(/agentstack-capabilities\.json is a folder; it was moved to .*agentstack-capabilities\.json\.moved-/);
    expect(card).toMatch(/- Capabilities: \d+ actions/);
    expect(statSync(path).isFile()).toBe(true);
    const aside = readdirSync(dir).find((n) => n.startsWith('agentstack-capabilities.json.moved-'))!;
    expect(readFileSync(join(dir, aside, 'inside'), 'utf8')).toBe('x');
  });
});
