/**
 * The hooks honour the settings without paying for conf: conf brings ajv (~12 ms at start-up in our measurement),
 * so the hook bundles read agentstack-settings.json with a plain schema instead. Nor do the files a hook runs on
 * every call construct zod schemas (~5 ms): the build gives them plain schemas (build/plainSchemas.mjs). The markers
 * below are strings only conf, ajv and zod carry; a bundle that does use them proves they are found when present.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo.js';

const CONF_MARKERS = ['Config schema violation', 'Please specify the `projectName` option'];
const AJV_MARKERS = ['strictSchema', 'ajv-formats', '$dynamicAnchor'];
const ZOD_MARKERS = ['_zod', '$ZodType'];
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('settings in the hook bundles', () => {
  it('config.mjs carries conf and ajv (the markers find them)', () => {
    const text = read('scripts/config.mjs');
    for (const marker of [...CONF_MARKERS, ...AJV_MARKERS]) expect(text, marker).toContain(marker);
  });

  // Each hook is a first stage plus sibling chunks: every file of it is checked, and one of them reads the settings.
  it.each(['session-start', 'pre-mcp-cap-check', 'after-mcp-journal'])('%s (every file of the hook) contains neither conf nor ajv, yet reads the settings file', (hook) => {
    const files = readdirSync(join(REPO_ROOT, 'hooks/scripts')).filter((f) => f.startsWith(`${hook}.`) && f.endsWith('.cjs'));
    expect(files.length).toBeGreaterThan(0);
    const texts = files.map((f) => read(`hooks/scripts/${f}`));
    for (const text of texts) for (const marker of [...CONF_MARKERS, ...AJV_MARKERS]) expect(text, marker).not.toContain(marker);
    expect(texts.some((text) => text.includes('agentstack-settings.json'))).toBe(true);
  });
});

describe('zod in the hook bundles', () => {
  it('the network chunk, which parses server answers with zod, carries it (the markers find it)', () => {
    const text = read('hooks/scripts/session-start.net.cjs');
    for (const marker of ZOD_MARKERS) expect(text, marker).toContain(marker);
  });

  it.each(['session-start.cjs', 'session-start.main.cjs', 'pre-mcp-cap-check.cjs', 'pre-mcp-cap-check.execute.cjs', 'after-mcp-journal.cjs', 'after-mcp-journal.record.cjs'])('%s (run without the network) has no zod, yet checks its input', (file) => {
    const text = read(`hooks/scripts/${file}`);
    for (const marker of ZOD_MARKERS) expect(text, marker).not.toContain(marker);
  });

  it('the chunks that read the snapshot and the hook input carry their plain schemas', () => {
    for (const file of ['session-start.main.cjs', 'pre-mcp-cap-check.execute.cjs']) expect(read(`hooks/scripts/${file}`)).toMatch(/fetched_at:\{type:"string"\},audience:\{type:"literal",values:\["tenant"\]\}/);
  });
});
