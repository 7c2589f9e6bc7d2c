import { describe, expect, it } from 'vitest';
import { watchEventStream } from '../../lib/agentstack/probe/streamWatch.js';

/** Reads a watched event stream made of `chunks` to its end; says whether it was reported closed early. */
async function closedEarly(chunks: string[]): Promise<{ early: boolean; text: string }> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
  let early = false;
  const res = watchEventStream(new Response(body, { headers: { 'content-type': 'text/event-stream' } }), () => { early = true; });
  const text = await res.text();
  return { early, text };
}

describe('event stream watch', () => {
  it('reports a stream that ends with no event at all, or only notifications without ids', async () => {
    expect((await closedEarly([])).early).toBe(true);
    expect((await closedEarly(['event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n'])).early).toBe(true);
  });

  it('is quiet when a response arrived (even split across chunks) or an event id gives a place to resume', async () => {
    const response = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n';
    const split = await closedEarly([response.slice(0, 20), response.slice(20, 41), response.slice(41)]);
    expect(split).toEqual({ early: false, text: response });
    expect((await closedEarly(['data: {"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}\n\n'])).early).toBe(false);
    expect((await closedEarly(['id: 7\ndata: \n\n'])).early).toBe(false);
    expect((await closedEarly(['id: 7\r\ndata: \r\n\r\n'])).early).toBe(false);
  });
});
