// Keeps an open page current when someone else changes its namespace: reads the native change stream
// (GET /internal/v1/evaluation/snapshot/namespace/{ns}/events, on with ofrep.event_streams.enabled)
// through fetch, so the session's bearer token travels in a header, and refetches the namespace's
// queries on every change. A stream that ends (a server restart, a network drop) is reopened after a
// growing pause, naming the last revision seen (Last-Event-ID): the server then sends one message if
// the namespace changed meanwhile and nothing if not. Streams off (404) or a token without access to
// the namespace (403) stop it for good: the page works as it always did. A refused token (401: deleted
// or expired, which also ends an open stream) brings up the sign-in prompt; the stream is paused
// while the prompt is up and opens again with the new token.

import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { getToken, noteRevisionsOf, reportUnauthorized, takeRevisionsSeen } from './client.js';
import { takeEvents } from './sse-events.js';

const FIRST_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 30_000;

/** How one stream ended: reopen it, or never again (streams off, token refused). */
type Ending = 'reopen' | 'stop';

/** `paused`: true while the session has no usable token (the sign-in prompt is up). */
export function useNamespaceChanges(ns: string, paused = false): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (paused) return;
    // Only answers from now on say what this page's data was read at.
    noteRevisionsOf(ns);
    const abort = new AbortController();
    const url = `/internal/v1/evaluation/snapshot/namespace/${encodeURIComponent(ns)}/events`;
    const refetch = () => void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[1] === ns });
    let lastId: string | undefined;
    let opened = false;
    let pause = FIRST_PAUSE_MS;

    const follow = async (): Promise<Ending> => {
      const token = getToken();
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      if (lastId !== undefined) headers['last-event-id'] = lastId;
      const res = await fetch(url, { headers, signal: abort.signal });
      if (res.status === 401) {
        reportUnauthorized();
        return 'stop';
      }
      if (res.status === 403 || res.status === 404) return 'stop';
      if (!res.ok || !res.body) return 'reopen';
      // The very first stream's opening message names the current revision: old news when every
      // answer the page read its data from named that same revision (X-Vexil-Revision), and a change
      // that slipped in between the page's reads and the stream's opening otherwise. Later, every
      // message is a change this page has not seen.
      let first = !opened;
      opened = true;
      pause = FIRST_PAUSE_MS;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'reopen';
        const { events, rest } = takeEvents(buffer + value);
        buffer = rest;
        for (const event of events) {
          if (event.id !== undefined) lastId = event.id;
          if (first) {
            first = false;
            const seen = takeRevisionsSeen(ns);
            if (seen.size > 0 && [...seen].every((revision) => revision === event.id)) continue;
          }
          refetch();
        }
      }
    };

    const run = async () => {
      while (!abort.signal.aborted) {
        // A failed fetch or a cut connection is met like a stream the server ended.
        const ending = await follow().catch((): Ending => 'reopen');
        if (ending === 'stop' || abort.signal.aborted) return;
        await sleep(pause, abort.signal);
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      }
    };
    void run();
    return () => {
      abort.abort();
      takeRevisionsSeen(ns);
    };
  }, [ns, queryClient, paused]);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake);
  });
}
