/**
 * Just enough XML to judge an SVG logo: well-formed (one root, tags balanced, attributes quoted and not repeated,
 * `&` only in entities), a root `<svg>`, and its `viewBox`. Pure; no external entity is ever resolved.
 */
export type SvgInfo =
  | { kind: 'ok'; viewBox: { width: number; height: number } | null; gradients: boolean }
  | { kind: 'invalid'; reason: string };

const NAME = /^[A-Za-z_][\w.:-]*/;
const ATTR = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*("[^"<]*"|'[^'<]*')/;
const BAD_AMP = /&(?!(?:[A-Za-z_][\w.-]*|#\d+|#x[0-9A-Fa-f]+);)/;

function skip(text: string, at: number, open: string, close: string): number | null {
  if (!text.startsWith(open, at)) return null;
  const end = text.indexOf(close, at + open.length);
  return end < 0 ? -1 : end + close.length;
}

export function svgInfo(text: string): SvgInfo {
  const src = text.replace(/^\uFEFF/, '');
  const stack: string[] = [];
  let root: { name: string; attrs: Record<string, string> } | null = null;
  let closedRoot = false;
  let gradients = false;
  let i = 0;
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const chunk = src.slice(i, lt < 0 ? src.length : lt);
    if (BAD_AMP.test(chunk)) return { kind: 'invalid', reason: 'a bare "&" in text' };
    if (chunk.trim() && stack.length === 0) return { kind: 'invalid', reason: 'text outside the root element' };
    if (lt < 0) break;
    const skipped = skip(src, lt, '<!--', '-->') ?? skip(src, lt, '<![CDATA[', ']]>') ?? skip(src, lt, '<?', '?>');
    if (skipped !== null) {
      if (skipped < 0) return { kind: 'invalid', reason: 'an unclosed comment, CDATA or processing instruction' };
      i = skipped;
      continue;
    }
    if (src.startsWith('<!DOCTYPE', lt)) {
      if (root) return { kind: 'invalid', reason: 'a DOCTYPE after the root element' };
      const bracket = src.indexOf('[', lt);
      const gt = src.indexOf('>', lt);
      const subsetEnd = bracket >= 0 && bracket < gt ? src.indexOf(']', bracket) : gt;
      const end = subsetEnd < 0 ? -1 : src.indexOf('>', subsetEnd);
      if (end < 0) return { kind: 'invalid', reason: 'an unclosed DOCTYPE' };
      i = end + 1;
      continue;
    }
    if (src[lt + 1] === '/') {
      const name = NAME.exec(src.slice(lt + 2))?.[0];
      const after = lt + 2 + (name?.length ?? 0);
      const gt = src.indexOf('>', after);
      if (!name || gt < 0 || src.slice(after, gt).trim() || stack.pop() !== name) return { kind: 'invalid', reason: `a closing tag </${name ?? ''}> that matches no open tag` };
      if (stack.length === 0) closedRoot = true;
      i = gt + 1;
      continue;
    }
    const name = NAME.exec(src.slice(lt + 1))?.[0];
    if (!name) return { kind: 'invalid', reason: 'a "<" that starts no tag' };
    if (closedRoot || (stack.length === 0 && root)) return { kind: 'invalid', reason: 'more than one root element' };
    let at = lt + 1 + name.length;
    const attrs: Record<string, string> = {};
    for (let m = ATTR.exec(src.slice(at)); m; m = ATTR.exec(src.slice(at))) {
      if (m[1]! in attrs) return { kind: 'invalid', reason: `attribute ${m[1]} repeated on <${name}>` };
      if (BAD_AMP.test(m[2]!)) return { kind: 'invalid', reason: `a bare "&" in attribute ${m[1]}` };
      attrs[m[1]!] = m[2]!.slice(1, -1);
      at += m[0].length;
    }
    const end = /^\s*(\/?)>/.exec(src.slice(at));
    if (!end) return { kind: 'invalid', reason: `a malformed <${name}> tag` };
    if (!root) root = { name, attrs };
    if (/gradient$/i.test(name)) gradients = true;
    if (!end[1]) stack.push(name);
    else if (stack.length === 0) closedRoot = true;
    i = at + end[0].length;
  }
  if (!root) return { kind: 'invalid', reason: 'no root element' };
  if (stack.length) return { kind: 'invalid', reason: `<${stack[stack.length - 1]}> is never closed` };
  if (root.name.replace(/^\w+:/, '') !== 'svg') return { kind: 'invalid', reason: `the root element is <${root.name}>, not <svg>` };
  const box = root.attrs.viewBox?.trim().split(/[\s,]+/).map(Number);
  const viewBox = box && box.length === 4 && box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0 ? { width: box[2]!, height: box[3]! } : null;
  return { kind: 'ok', viewBox, gradients };
}
