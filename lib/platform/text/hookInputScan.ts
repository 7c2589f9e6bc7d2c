/**
 * Finds the call's top-level `tool_name`, `url`, `mcp_server_url` and `mcp_server_name` in hook input too large (or too slow) to read
 * whole: a byte-level scan fed chunk by chunk that keeps nothing but those short strings. Only keys of the outer
 * object count (a "tool_name" inside `tool_input` is the agent's text, not Cursor's). Structural JSON bytes are
 * ASCII and every byte of a multi-byte UTF-8 character is >= 0x80, so scanning bytes is exact.
 */
const WANTED = new Set(['tool_name', 'url', 'mcp_server_url', 'mcp_server_name']);
const MAX_CAPTURE = 2_048;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export interface SeenCall {
  tool_name?: string;
  url?: string;
  mcp_server_url?: string;
  mcp_server_name?: string;
}

export interface TopLevelScanner {
  feed(chunk: Uint8Array): void;
  /** The wanted keys seen with a plain string value; a key seen twice with different values is left out. */
  result(): SeenCall;
  /** True when a wanted key was left out (seen twice with different values, or with a value that is not a string). */
  unclear(): boolean;
}

export function createTopLevelScanner(): TopLevelScanner {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expectKey = false;
  /** The key whose value comes next (top level), or null. */
  let key: string | null = null;
  /** Bytes of the string being captured (a top-level key, or a wanted key's value), or null when not capturing. */
  let capture: number[] | null = null;
  let capturing: 'key' | 'value' | null = null;
  let overflow = false;
  const seen = new Map<string, string | null>();

  const endString = () => {
    if (capturing === null || capture === null) return;
    let text: string | null = null;
    if (!overflow) {
      try { text = JSON.parse(`"${Buffer.from(capture).toString('utf8')}"`) as string; } catch { text = null; }
    }
    if (capturing === 'key') {
      key = text;
    } else if (key !== null) {
      const before = seen.get(key);
      seen.set(key, before === undefined || before === text ? text : null);
      key = null;
    }
    capture = null;
    capturing = null;
    overflow = false;
  };

  return {
    feed(chunk) {
      for (const byte of chunk) {
        if (inString) {
          if (capture !== null) {
            if (capture.length < MAX_CAPTURE) capture.push(byte);
            else overflow = true;
          }
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) {
            inString = false;
            if (capture !== null) capture.pop();
            endString();
          }
          continue;
        }
        switch (byte) {
          case QUOTE:
            inString = true;
            if (depth === 1 && expectKey) {
              capturing = 'key';
              capture = [];
              expectKey = false;
            } else if (depth === 1 && key !== null && WANTED.has(key)) {
              capturing = 'value';
              capture = [];
            }
            break;
          case 0x7b: // {
          case 0x5b: // [
            depth += 1;
            if (depth === 1) expectKey = byte === 0x7b;
            break;
          case 0x7d: // }
          case 0x5d: // ]
            depth -= 1;
            if (depth === 1) key = null;
            break;
          case 0x2c: // ,
            if (depth === 1) {
              expectKey = true;
              key = null;
            }
            break;
          default:
            // A non-string value (number, true, null) of a wanted key: it is not a name we can use.
            if (depth === 1 && key !== null && byte > 0x20 && byte !== 0x3a) {
              if (WANTED.has(key)) seen.set(key, null);
              key = null;
            }
        }
      }
    },
    result() {
      const out: SeenCall = {};
      for (const [k, v] of seen) if (v !== null) out[k as keyof SeenCall] = v;
      return out;
    },
    unclear() {
      for (const v of seen.values()) if (v === null) return true;
      return false;
    },
  };
}
