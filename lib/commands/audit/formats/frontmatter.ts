/**
 * The YAML frontmatter of a Markdown component (command, skill, rule, agent): the flat `key: value` subset these
 * files use. Values: plain or quoted strings, booleans, numbers, `[a, b]` and `- item` lists, `|`/`>` blocks; a
 * nested map is kept as an empty object. Anything else is reported, never thrown.
 */
export type Frontmatter =
  | { kind: 'none' }
  | { kind: 'invalid'; line: number; reason: string }
  | { kind: 'ok'; fields: Record<string, unknown> };

const BLOCK = /^---\r?\n([\s\S]*?)\r?\n?---[ \t]*(\r?\n|$)/;
const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/;

function scalar(raw: string): unknown {
  const text = /^\s*["']/.test(raw) ? raw.trim() : raw.replace(/[ \t]+#.*$/, '').trim();
  if (/^"(?:[^"\\]|\\.)*"$/.test(text)) {
    try { return JSON.parse(text); } catch { return text.slice(1, -1); }
  }
  if (/^'(?:[^']|'')*'$/.test(text)) return text.slice(1, -1).replace(/''/g, "'");
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^(null|~)?$/.test(text)) return null;
  if (text.startsWith('[') && text.endsWith(']')) {
    const inner = text.slice(1, -1).trim();
    return inner ? inner.split(',').map((s) => scalar(s)) : [];
  }
  return text;
}

export function parseFrontmatter(text: string): Frontmatter {
  const match = BLOCK.exec(text.replace(/^\uFEFF/, ''));
  if (!match) return { kind: 'none' };
  const lines = match[1]!.split(/\r?\n/);
  const fields: Record<string, unknown> = {};
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const key = KEY_LINE.exec(line);
    if (!key) return { kind: 'invalid', line: i + 2, reason: `"${line.trim().slice(0, 40)}" is not "key: value"` };
    const [, name, rest = ''] = key;
    const nested: string[] = [];
    while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]!) || /^-\s/.test(lines[i + 1]!))) nested.push(lines[(i += 1)]!);
    if (rest.trim() && !/^[|>][+-]?$/.test(rest.trim())) fields[name!] = scalar(rest);
    else if (/^[|>]/.test(rest.trim())) fields[name!] = nested.map((l) => l.trim()).join(rest.trim().startsWith('|') ? '\n' : ' ').trim();
    else if (nested.length && nested.every((l) => /^\s*-\s/.test(l))) fields[name!] = nested.map((l) => scalar(l.replace(/^\s*-\s/, '')));
    else fields[name!] = nested.length ? {} : null;
  }
  return { kind: 'ok', fields };
}

/** A non-empty string field, trimmed, or null. */
export function stringField(fields: Record<string, unknown>, key: string): string | null {
  const v = fields[key];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}
