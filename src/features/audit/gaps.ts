// The delivery position of a sink over the changes table. On PostgreSQL and MySQL an id is taken when a
// row is inserted, not when its transaction commits, so a reader can see id 11 while id 10 is still
// uncommitted (or will never exist: a rolled-back insert spends its id). A plain "last id" cursor would
// skip 10 for ever. So passing ids that are not visible yet records them as a gap, and gaps are read
// again on every pass until their row shows up or they are older than the watch time.

import type { DeliveryState, IdGap } from './store.js';

/** How long an id that was not visible when passed is still watched for: longer than any write runs. */
export const GAP_WATCH_MS = 60 * 60_000;
/** Most gap ranges kept; the oldest go first (each one is a term of every pass's query). */
export const MAX_GAPS = 200;

/** The state after handling change `id` (delivered, filtered out or passed), seen at `nowMs`. */
export function markHandled(state: DeliveryState, id: number, nowMs: number): DeliveryState {
  if (id > state.deliveredThrough) {
    const gaps = [...state.gaps];
    if (id > state.deliveredThrough + 1) gaps.push([state.deliveredThrough + 1, id - 1, nowMs]);
    return { ...state, deliveredThrough: id, gaps: gaps.slice(-MAX_GAPS) };
  }
  const gaps: IdGap[] = [];
  for (const gap of state.gaps) {
    const [from, to, seen] = gap;
    if (id < from || id > to) gaps.push(gap);
    else {
      if (from < id) gaps.push([from, id - 1, seen]);
      if (id < to) gaps.push([id + 1, to, seen]);
    }
  }
  return { ...state, gaps };
}

/** Drops the gaps watched longer than `watchMs`: their transactions are over. */
export function expireGaps(state: DeliveryState, nowMs: number, watchMs = GAP_WATCH_MS): DeliveryState {
  const gaps = state.gaps.filter(([, , seen]) => nowMs - seen < watchMs);
  return gaps.length === state.gaps.length ? state : { ...state, gaps };
}
