/**
 * The hooks honour the settings without paying for conf: conf brings ajv (~12 ms at start-up in our measurement),
 * so the hook bundles read agentstack-settings.json with a small zod/mini schema instead. The markers below are
 * strings only conf and ajv carry; config.mjs, which does use conf, proves they are found when present.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

const CONF_MARKERS = ['Config schema violation', 'Please specify the `projectName` option'];
const AJV_MARKERS = ['strictSchema', 'ajv-formats', '$dynamicAnchor'];
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('settings in the hook bundles', () => {
  it('config.mjs carries conf and ajv (the markers find them)', () => {
    const text = read('scripts/config.mjs');
    for (const marker of [...CONF_MARKERS, ...AJV_MARKERS]) expect(text, marker).toContain(marker);
  });

  // Each hook is a first stage plus sibling chunks: every file of it is checked, and one of them reads the settings.
  it.each(['session-start', 'pre-mcp-cap-check'])('%s (every file of the hook) contains neither conf nor ajv, yet reads the settings file', (hook) => {
    const files = readdirSync(join(REPO_ROOT, 'hooks/scripts')).filter((f) => f.startsWith(`${hook}.`) && f.endsWith('.cjs'));
    expect(files.length).toBeGreaterThan(0);
    const texts = files.map((f) => read(`hooks/scripts/${f}`));
    for (const text of texts) for (const marker of [...CONF_MARKERS, ...AJV_MARKERS]) expect(text, marker).not.toContain(marker);
    expect(texts.some((text) => text.includes('agentstack-settings.json'))).toBe(true);
  });
});
