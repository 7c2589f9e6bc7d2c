/**
 * Where a JSON text first goes wrong, as line and column. V8's own messages do not always carry a position and
 * sometimes quote the text itself, which for mcp.json may hold a Bearer: so we find the spot ourselves.
 */
export interface JsonErrorPosition {
  offset: number;
  line: number;
  column: number;
  reason: string;
}

class Stop extends Error {
  constructor(readonly offset: number, readonly reason: string) {
    super(reason);
  }
}

/** Runs a strict JSON grammar over `text`; returns null when it is valid. */
export function findJsonError(text: string): JsonErrorPosition | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (reason: string): never => {
    throw new Stop(i, i >= text.length ? 'unexpected end of input' : reason);
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail('unexpected character');
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail('control character in string');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 5;
        } else if (i < text.length && '"\\/bfnrt'.includes(text[i]!)) i++;
        else fail('bad escape');
      } else i++;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m || !m[0] || m[0] === '-') fail('bad number');
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail('expected a value');
  };
  const object = () => {
    i++;
    ws();
    if (text[i] === '}') return void i++;
    for (;;) {
      ws();
      if (text[i] !== '"') fail('expected a double-quoted property name');
      string();
      ws();
      if (text[i] !== ':') fail("expected ':' after a property name");
      i++;
      value();
      ws();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === '}') return void i++;
      fail("expected ',' or '}'");
    }
  };
  const array = () => {
    i++;
    ws();
    if (text[i] === ']') return void i++;
    for (;;) {
      value();
      ws();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === ']') return void i++;
      fail("expected ',' or ']'");
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    ws();
    if (i < text.length) fail('unexpected text after the JSON value');
    return null;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const before = text.slice(0, error.offset);
    const line = before.split('\n').length;
    const column = error.offset - (before.lastIndexOf('\n') + 1) + 1;
    return { offset: error.offset, line, column, reason: error.reason };
  }
}
