/**
 * Generic rules over a plugin's other files: its bundled scripts and the secret scan. Pure: each takes the files
 * read by readPluginFiles and returns one Check.
 */
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { bareImports } from './bundleRules.js';
import type { PluginFiles } from './readPlugin.js';
import { list } from './rule.js';
import { findSecretLike } from './formats/secretScan.js';

export const hasBundles = (p: PluginFiles) => p.bundles.length > 0;

/** Cursor installs a plugin as files, without npm install: a script importing a package breaks there. */
export function bundlesSelfContainedRule(p: PluginFiles): Check {
  const id = 'bundles.self-contained';
  const bad = p.bundles.map((b) => ({ path: b.path, bare: bareImports(b.text) })).filter((b) => b.bare.length);
  return bad.length
    ? fail(id, list(bad.map((b) => `${b.path} imports ${b.bare.slice(0, 3).join(', ')}`)), 'Bundle every dependency into the script: Cursor installs plugins without npm install', bad)
    : pass(id, `${p.bundles.length} bundled script(s) import only node: built-ins and relative files`);
}

export function secretsRule(p: PluginFiles): Check {
  const id = 'secrets';
  const found = p.texts.flatMap((t) => findSecretLike(t.text).map((f) => `${t.path}:${f.line} ${f.kind} ${f.masked}`));
  return found.length
    ? warn(id, `secret-looking strings: ${list(found)}`, 'Remove them and rotate any real credential', found)
    : pass(id, `no secret-looking strings in ${p.texts.length} text files`);
}
