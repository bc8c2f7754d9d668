// A server-sent-events reader over node:http for tests: parses events and comment lines as they come,
// and can stop reading (a slow client) or be closed.

import { type ClientRequest, type IncomingMessage, request } from 'node:http';

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface SseReader {
  status: number;
  headers: IncomingMessage['headers'];
  events: SseEvent[];
  /** Comment lines received (heartbeats and the closing word), without the colon. */
  comments: string[];
  /** Every byte received, as text. */
  text(): string;
  ended: Promise<void>;
  /** Resolves once `predicate` holds over what arrived (checked on every chunk), or rejects after `timeoutMs`. */
  until(predicate: (reader: SseReader) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
  raw: IncomingMessage;
  req: ClientRequest;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let all = '';
      let pending = '';
      const waiters = new Set<() => void>();
      const reader: SseReader = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        text: () => all,
        ended: new Promise((done) => {
          res.on('end', done);
          res.on('close', done);
          res.on('error', () => done());
        }),
        until(predicate, timeoutMs = 10_000) {
          if (predicate(reader)) return Promise.resolve();
          return new Promise((ok, fail) => {
            const check = () => {
              if (!predicate(reader)) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`condition not met within ${timeoutMs} ms; received: ${JSON.stringify(all)}`));
            }, timeoutMs);
            waiters.add(check);
          });
        },
        close: () => req.destroy(),
        raw: res,
        req,
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        all += chunk;
        pending += chunk;
        let cut = pending.indexOf('\n\n');
        while (cut >= 0) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          const event: SseEvent = { id: undefined, event: undefined, data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) reader.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data += line.slice(6);
              hasData = true;
            }
          }
          if (hasData) reader.events.push(event);
          cut = pending.indexOf('\n\n');
        }
        for (const waiter of [...waiters]) waiter();
      });
      res.on('end', () => {
        for (const waiter of [...waiters]) waiter();
      });
      resolve(reader);
    });
    req.on('error', reject);
    req.end();
  });
}
