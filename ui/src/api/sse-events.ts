// Reads server-sent events out of a text stream that arrives in arbitrary pieces: fetch gives no
// EventSource, and EventSource cannot send the session's bearer token. Only what the change streams
// use is kept: `id:` and `data:` lines; comments (heartbeats), `event:` and `retry:` are passed over.

export interface SseEvent {
  /** The event's `id:`, when it had one. */
  id?: string;
  data: string;
}

/** Splits the complete events off `buffer`; `rest` is the unfinished tail to prepend to the next piece. */
export function takeEvents(buffer: string): { events: SseEvent[]; rest: string } {
  // CRLF is read as LF; a lone CR (allowed by the spec, sent by no server of ours) is not a line end.
  const text = buffer.replace(/\r\n/g, '\n');
  const events: SseEvent[] = [];
  let start = 0;
  for (let cut = text.indexOf('\n\n'); cut >= 0; cut = text.indexOf('\n\n', start)) {
    const event = parseBlock(text.slice(start, cut));
    if (event) events.push(event);
    start = cut + 2;
  }
  return { events, rest: text.slice(start) };
}

function parseBlock(block: string): SseEvent | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  // A block without data is no event (a heartbeat, the opening `retry:`).
  if (data.length === 0) return undefined;
  return id === undefined ? { data: data.join('\n') } : { id, data: data.join('\n') };
}
