// Whether the dashboard can reach its server (issue 42, item 3). A request that cannot be sent at all
// (the server is down, the network gone) marks it lost; any answer, even an error, marks it back. While
// lost, /health is asked every few seconds, and when it answers the page's data is read again.

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';

const POLL_MS = 2_000;

let reachable = true;
const listeners = new Set<() => void>();

/** Called by client.ts on every request: sent and answered (true), or not sent at all (false). */
export function reportReachable(ok: boolean): void {
  if (ok === reachable) return;
  reachable = ok;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True while the server answers; while not, asks /health until it does, then refreshes the page's data. */
export function useServerReachable(): boolean {
  const ok = useSyncExternalStore(subscribe, () => reachable);
  const queryClient = useQueryClient();
  useEffect(() => {
    const offline = () => reportReachable(false);
    window.addEventListener('offline', offline);
    return () => window.removeEventListener('offline', offline);
  }, []);
  useEffect(() => {
    if (ok) return;
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const res = await fetch('/health', { cache: 'no-store' });
        if (!stopped && res.ok) {
          reportReachable(true);
          void queryClient.invalidateQueries();
        }
      } catch {
        // still lost
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [ok, queryClient]);
  return ok;
}
