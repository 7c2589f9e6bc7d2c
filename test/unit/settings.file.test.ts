/**
 * The settings file as the hooks read it (file.ts): the words a person is given for a file that cannot be used, what
 * a Windows editor leaves in it, and the values refused one by one (kept aside for the managed file's strict reading).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSettingsText, readSettingsFile } from '../../lib/agentstack/settings/file.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  tmp = tempDir('agentstack-settings-file-');
  path = join(tmp.path, 'agentstack-settings.json');
});
afterEach(() => tmp.cleanup());

describe('a settings file that cannot be used: one line saying why, and that it was ignored', () => {
  it('a folder in its place: cannot be read, with the system\'s code', () => {
    mkdirSync(path);
    expect(readSettingsFile(path)).toEqual({ path, values: {}, rejected: [], exists: true, broken: true, problems: [`The settings file ${path} cannot be read (EISDIR); it was ignored.`] });
  });
  it('not JSON: how to fix it', () => {
    writeFileSync(path, '{"journal": ');
    expect(readSettingsFile(path)).toEqual({ path, values: {}, rejected: [], exists: true, broken: true, problems: [`The settings file ${path} is not valid JSON; it was ignored. Fix it by hand, or delete it and set the values again.`] });
  });
  it('JSON but not an object', () => {
    writeFileSync(path, '["journal"]');
    expect(readSettingsFile(path)).toEqual({ path, values: {}, rejected: [], exists: true, broken: true, problems: [`The settings file ${path} is not a JSON object; it was ignored.`] });
  });
});

describe('a file as people leave it', () => {
  it('a BOM before the JSON, or only white space: read', () => {
    writeFileSync(path, '\uFEFF{"journal": "off"}');
    expect(readSettingsFile(path)).toMatchObject({ exists: true, broken: false, values: { journal: 'off' }, problems: [] });
    writeFileSync(path, ' \n\t');
    expect(readSettingsFile(path)).toMatchObject({ exists: true, broken: false, values: {}, problems: [] });
    expect(parseSettingsText('\uFEFF')).toEqual({});
    expect(() => parseSettingsText('x\uFEFF{}')).toThrow(SyntaxError);
  });
  it('only a BOM at the very start is dropped: one inside a value stays, and the value is refused', () => {
    writeFileSync(path, '{"oauth-client-id": "a\uFEFFb"}');
    expect(readSettingsFile(path)).toMatchObject({ values: {}, rejected: ['oauth-client-id'] });
  });
  it('the project pin is not a key of this file: left alone, no problem', () => {
    writeFileSync(path, JSON.stringify({ project: '42', journal: 'on' }));
    const read = readSettingsFile(path);
    expect(read.values).toEqual({ journal: 'on' });
    expect(read).toMatchObject({ problems: [], rejected: [] });
  });
  it('values refused one by one: each named, the raw value kept aside, the others used', () => {
    writeFileSync(path, JSON.stringify({ journal: 'sometimes', 'auto-login': 'false', debug: 'api', 'scope-preset': 3 }));
    const read = readSettingsFile(path);
    expect(read.values).toEqual({ debug: 'api' });
    expect(read.rejected).toEqual(['auto-login', 'scope-preset', 'journal']);
    expect(read.refused).toEqual({ journal: 'sometimes', 'auto-login': 'false', 'scope-preset': 3 });
    expect(read.problems).toEqual([
      `auto-login in ${path} must be a JSON boolean; it was ignored.`,
      `scope-preset in ${path} must be a JSON string; it was ignored.`,
      `journal in ${path} must be on or off (got "sometimes"); it was ignored.`,
    ]);
  });
});
