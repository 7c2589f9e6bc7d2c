/**
 * Surgical edits of a JSON text: set or remove the value at a path and leave every other byte as it was (numbers
 * JSON.parse would round or turn into null, key order, duplicate keys elsewhere, indentation, line endings). Built on
 * jsonc-parser's `modify` + `applyEdits`, the edit engine VS Code uses for settings.json.
 */
import { applyEdits, findNodeAtLocation, modify, parseTree, type Edit, type FormattingOptions, type Node } from 'jsonc-parser';

export type JsonPath = Array<string>;
export interface JsonEdit {
  path: JsonPath;
  /** undefined removes the property. */
  value: unknown;
}

/** Indentation and line endings as the text already uses them (two spaces and `\n` when it shows none). */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)["}\]]/m.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

/** How many properties named `key` the object at `path` has (0 when there is no such object). */
function countKeys(root: Node, path: JsonPath, key: string): number {
  const parent = path.length ? findNodeAtLocation(root, path) : root;
  if (!parent || parent.type !== 'object') return 0;
  return (parent.children ?? []).filter((p) => p.children?.[0]?.value === key).length;
}

const lineIndent = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', offset - 1) + 1))![0];

/** `value` as JSON: on one line inside a one-line object, else indented to sit at `indent`. */
function render(value: unknown, indent: string, oneLine: boolean, fmt: FormattingOptions): string {
  if (oneLine) return JSON.stringify(value);
  const unit = fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 2) : '\t';
  return JSON.stringify(value, null, unit).split('\n').join((fmt.eol ?? '\n') + indent);
}

const isOneLine = (body: string, node: Node) => !body.slice(node.offset, node.offset + node.length).includes('\n');

/**
 * The edit adding `key: value` to the object `parent`. Written by hand, like replacements: jsonc-parser's formatter
 * re-formats the whole lines around an edit (re-indenting a sibling on the same line), and grows the indentation of
 * a one-line file on every pass.
 */
function insertion(body: string, parent: Node, key: string, value: unknown, fmt: FormattingOptions): Edit {
  const eol = fmt.eol ?? '\n';
  const oneLine = isOneLine(body, parent);
  const sep = oneLine ? ':' : ': ';
  const children = parent.children ?? [];
  if (children.length) {
    const last = children[children.length - 1]!;
    const indent = lineIndent(body, last.offset);
    const content = `,${oneLine ? '' : eol + indent}${JSON.stringify(key)}${sep}${render(value, indent, oneLine, fmt)}`;
    return { offset: last.offset + last.length, length: 0, content };
  }
  const outer = lineIndent(body, parent.offset);
  const inner = outer + (fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 2) : '\t');
  const content = oneLine
    ? `{${JSON.stringify(key)}:${JSON.stringify(value)}}`
    : `{${eol}${inner}${JSON.stringify(key)}: ${render(value, inner, false, fmt)}${eol}${outer}}`;
  return { offset: parent.offset, length: parent.length, content };
}

/** The edits for one change: a removal through jsonc-parser's `modify`, a replacement or insertion in place. */
function editsFor(body: string, root: Node, path: JsonPath, value: unknown, fmt: FormattingOptions): Edit[] | null {
  if (value === undefined) return modify(body, path, undefined, {});
  const node = findNodeAtLocation(root, path);
  if (node) {
    const property = node.parent!;
    const oneLine = isOneLine(body, property.parent ?? property);
    return [{ offset: node.offset, length: node.length, content: render(value, lineIndent(body, property.offset), oneLine, fmt) }];
  }
  // Insert below the deepest object that exists on the path, nesting the rest of the path into the value.
  for (let i = path.length - 1; i >= 0; i -= 1) {
    const parent = i === 0 ? root : findNodeAtLocation(root, path.slice(0, i));
    if (!parent) continue;
    if (parent.type !== 'object') break;
    const nested = path.slice(i + 1).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
    return [insertion(body, parent, path[i]!, nested, fmt)];
  }
  return null;
}

/** The edited text, or why it could not be edited (to be put after the file's name). */
export type JsonEditResult = { kind: 'ok'; text: string } | { kind: 'refused'; reason: string };

/**
 * Applies `edits` in order to `text` (which must be valid JSON; an optional BOM is kept). A property named twice on
 * an edited path is refused: JSON.parse reads the last one, an edit would change the first. Returns a result rather
 * than throwing, so callers in another bundle chunk need not share an error class with this module.
 */
export function editJsonText(text: string, edits: JsonEdit[]): JsonEditResult {
  const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  let body = bom ? text.slice(1) : text;
  const formattingOptions = formattingOf(body);
  for (const { path, value } of edits) {
    const root = parseTree(body);
    if (!root) return { kind: 'refused', reason: 'is not valid JSON' };
    for (let i = 0; i < path.length; i += 1) {
      if (countKeys(root, path.slice(0, i), path[i]!) > 1) return { kind: 'refused', reason: `names ${JSON.stringify(path[i])} twice in the same object` };
    }
    const changes = editsFor(body, root, path, value, formattingOptions);
    if (!changes) return { kind: 'refused', reason: `has a value that is not an object on the path ${path.join('.')}` };
    body = applyEdits(body, changes);
  }
  return { kind: 'ok', text: bom + body };
}
