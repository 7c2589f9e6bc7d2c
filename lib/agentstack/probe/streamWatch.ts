/**
 * Watches the event stream that answers a POSTed JSON-RPC request. When it ends with neither a response (`result` or
 * `error`) nor any event id, the SDK's transport has nothing to resume from and would wait out the request's
 * deadline; `onClosedEarly` runs instead, so the probe fails that request at once. The bytes pass through unchanged.
 */

/** Past this much of one line the watcher stops reading and assumes the stream is fine (the SDK still reads it all). */
const MAX_LINE = 4 * 1024 * 1024;

/** A `data:` line that carries a JSON-RPC response. */
function isResponseData(line: string): boolean {
  try {
    const message = JSON.parse(line.slice(5).trim()) as unknown;
    const list = Array.isArray(message) ? message : [message];
    return list.some((m) => m && typeof m === 'object' && ('result' in m || 'error' in m));
  } catch {
    return false;
  }
}

export function watchEventStream(res: Response, onClosedEarly: () => void): Response {
  if (!res.body) return res;
  const decoder = new TextDecoder();
  let buffer = '';
  let settled = false; // an event id or a response was seen, or the watcher gave up
  const scan = (text: string) => {
    if (settled) return;
    buffer += text;
    for (let nl = buffer.indexOf('\n'); nl >= 0 && !settled; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (/^id:\s*\S/.test(line) || (line.startsWith('data:') && isResponseData(line))) settled = true;
    }
    if (buffer.length > MAX_LINE) settled = true;
  };
  const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      scan(decoder.decode(chunk, { stream: true }));
      controller.enqueue(chunk);
    },
    flush() {
      scan(`${decoder.decode()}\n`);
      if (!settled) onClosedEarly();
    },
  }));
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
