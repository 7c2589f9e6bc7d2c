/**
 * `config set` / `config unset`'s writes of agentstack-settings.json (store.ts), in the test's own process on real
 * files: what the file holds afterwards, its mode, the person's hand edits kept, a link replaced rather than followed,
 * and a file it cannot read left as it is.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setStoredSetting, unsetStoredSetting } from '../../lib/agentstack/settings/store.js';
import { readSettingsFile } from '../../lib/agentstack/settings/file.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
let path: string;
let lock: string;
beforeEach(() => {
  tmp = tempDir('agentstack-settings-store-');
  path = join(tmp.path, 'agentstack-settings.json');
  lock = join(tmp.path, 'agentstack-settings.lock');
});
afterEach(() => tmp.cleanup());

const json = (p = path) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
const posix = process.platform !== 'win32';

describe('config set', () => {
  it('no file yet: one is made, 0600, JSON as people edit it, holding the value; the hooks read it back', async () => {
    await setStoredSetting(path, lock, 'base-url', 'https://staging.example.com');
    expect(readFileSync(path, 'utf8')).toBe('{\n  "base-url": "https://staging.example.com"\n}\n');
    if (posix) expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readSettingsFile(path).values).toEqual({ 'base-url': 'https://staging.example.com' });
  });

  it('a yes/no key is stored as JSON true/false', async () => {
    await setStoredSetting(path, lock, 'auto-login', 'false');
    expect(json()).toEqual({ 'auto-login': false });
    await setStoredSetting(path, lock, 'auto-login', 'true');
    expect(json()).toEqual({ 'auto-login': true });
    await setStoredSetting(path, lock, 'journal', 'off');
    expect(json()).toEqual({ 'auto-login': true, journal: 'off' });
  });

  it('keeps what the person wrote by hand, a Windows editor\'s BOM and an empty file included', async () => {
    writeFileSync(path, '\uFEFF{ "debug": "api", "policy": "readonly" }');
    await setStoredSetting(path, lock, 'journal', 'off');
    expect(json()).toEqual({ debug: 'api', policy: 'readonly', journal: 'off' });
    writeFileSync(path, '');
    await setStoredSetting(path, lock, 'debug', 'api');
    expect(json()).toEqual({ debug: 'api' });
  });

  it('a file it cannot read (not JSON): refused, naming the problem, and left exactly as it was', async () => {
    writeFileSync(path, '{ "debug": "api", oops');
    const error = await setStoredSetting(path, lock, 'journal', 'off').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PluginError', code: 'malformed_file', message: expect.stringMatching(/is not valid JSON; it was ignored\..* Nothing was changed\.$/) });
    expect(readFileSync(path, 'utf8')).toBe('{ "debug": "api", oops');
  });

  it('a link: replaced by a regular 0600 file holding what it pointed to; the file it pointed to is left alone', async () => {
    if (!posix) return;
    const target = join(tmp.path, 'elsewhere.json');
    writeFileSync(target, '{ "debug": "api" }\n', { mode: 0o644 });
    symlinkSync(target, path);
    await setStoredSetting(path, lock, 'journal', 'off');
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(json()).toEqual({ debug: 'api', journal: 'off' });
    expect(readFileSync(target, 'utf8')).toBe('{ "debug": "api" }\n');
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  it('a link to nothing: replaced by a file holding just the value', async () => {
    if (!posix) return;
    symlinkSync(join(tmp.path, 'nowhere.json'), path);
    await setStoredSetting(path, lock, 'journal', 'off');
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(json()).toEqual({ journal: 'off' });
  });

  it('the Cursor dir does not exist yet: it is made, with the file', async () => {
    const inNew = join(tmp.path, 'new', 'agentstack-settings.json');
    await setStoredSetting(inNew, lock, 'journal', 'off');
    expect(json(inNew)).toEqual({ journal: 'off' });
    if (posix) expect(statSync(inNew).mode & 0o777).toBe(0o600);
  });

  it('its lock cannot be taken: the lock\'s own io error as it is, and the file left as it was', async () => {
    writeFileSync(path, '{ "debug": "api" }');
    writeFileSync(join(tmp.path, 'a-file'), '');
    const error = await setStoredSetting(path, join(tmp.path, 'a-file', 'lock'), 'journal', 'off').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PluginError', code: 'io', message: expect.stringMatching(/^Cannot create the lock file .*a parent is not a folder/) });
    expect(readFileSync(path, 'utf8')).toBe('{ "debug": "api" }');
  });

  // sysfs refuses a new file even to root, while reading a missing one there is fine: the write is what fails.
  it.skipIf(process.platform !== 'linux')('the file cannot be written (a folder nobody may add to): an io error naming the file and the system\'s code, with its cause', async () => {
    const inSys = '/sys/agentstack-settings.json';
    const error = await setStoredSetting(inSys, lock, 'journal', 'off').catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'PluginError', code: 'io', cause: expect.objectContaining({ code: 'EACCES' }),
      message: `Cannot write the settings file ${inSys} (EACCES); check that the folder is writable.`,
    });
  });
});

describe('config unset', () => {
  it('removes the key and keeps the others; true when it was set, false when it was not', async () => {
    writeFileSync(path, JSON.stringify({ debug: 'api', journal: 'off' }));
    expect(await unsetStoredSetting(path, lock, 'journal')).toBe(true);
    expect(json()).toEqual({ debug: 'api' });
    expect(await unsetStoredSetting(path, lock, 'journal')).toBe(false);
    expect(json()).toEqual({ debug: 'api' });
  });

  it('no file: false, and no file is made', async () => {
    expect(await unsetStoredSetting(path, lock, 'journal')).toBe(false);
    expect(existsSync(path)).toBe(false);
  });

  it('a file it cannot read: refused, and left as it was', async () => {
    writeFileSync(path, '[1, 2]');
    const error = await unsetStoredSetting(path, lock, 'journal').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'malformed_file', message: expect.stringContaining('is not a JSON object; it was ignored. Nothing was changed.') });
    expect(readFileSync(path, 'utf8')).toBe('[1, 2]');
  });

  it('a folder where the file should be: refused with the file\'s problem, nothing thrown raw', async () => {
    mkdirSync(path);
    const error = await unsetStoredSetting(path, lock, 'journal').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PluginError' });
  });
});
