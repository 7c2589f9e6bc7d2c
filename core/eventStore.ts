/**
 * The event store that makes the core's MCP response streams resumable (Streamable HTTP: a client whose stream
 * closed before its result sends GET with Last-Event-ID and gets the events after it). One store per session, so it
 * dies with the session; ids carry a counter, so replay order is the order events were stored (the SDK example
 * store sorts by a millisecond timestamp and can reorder events stored in the same millisecond). Bounded: the
 * oldest events are dropped past `limit`.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
}

export class SessionEventStore implements EventStore {
  private readonly events = new Map<string, Stored>();
  private next = 0;
  constructor(private readonly limit = 1000) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.next += 1;
    const id = `${this.next}.${streamId}`;
    this.events.set(id, { streamId, message });
    if (this.events.size > this.limit) this.events.delete(this.events.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [id, event] of this.events) {
      if (id === lastEventId) after = true;
      else if (after && event.streamId === last.streamId && Object.keys(event.message).length) await send(id, event.message);
    }
    return last.streamId;
  }
}
