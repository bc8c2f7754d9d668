// Keeps an open page current when someone else changes its namespace: reads the native change stream
// (GET /internal/v1/evaluation/snapshot/namespace/{ns}/events, on with ofrep.event_streams.enabled)
// through fetch, so the session's bearer token travels in a header, and refetches the namespace's
// queries on every change. When the stream is off (404) or fails, nothing happens: the page works as
// it always did.

import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { getToken } from './client.js';

export function useNamespaceChanges(ns: string): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const abort = new AbortController();
    const listen = async () => {
      const token = getToken();
      const res = await fetch(`/internal/v1/evaluation/snapshot/namespace/${encodeURIComponent(ns)}/events`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: abort.signal,
      });
      if (!res.ok || !res.body) return;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      // The first message names the revision current when the stream opened: the page has just read it.
      let first = true;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!/^data: /m.test(block)) continue;
          if (first) {
            first = false;
            continue;
          }
          void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[1] === ns });
        }
      }
    };
    listen().catch(() => {
      // Aborted on leaving the page, or the stream failed: the page keeps what it has.
    });
    return () => abort.abort();
  }, [ns, queryClient]);
}
