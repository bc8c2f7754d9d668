// The History tab of a flag (with its variants, rules, rollouts) or a segment (with its constraints).

import type { ReactNode } from 'react';
import type { Flag } from '../../api/types.js';
import { Link, paths } from '../../lib/router.js';
import { ChangeList } from './change-list.js';

/** The tab's frame: a hidden heading, what it lists (with a link to the namespace's Activity), the list. */
function HistorySection({ ns, what, children }: { ns: string; what: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby="history-heading" className="stack">
      <h2 id="history-heading" className="sr-only">
        History
      </h2>
      <p className="lead">
        {what}, newest first. The whole namespace is in <Link to={paths.activity(ns)}>Activity</Link>.
      </p>
      {children}
    </section>
  );
}

const EMPTY = 'Changes made from now on appear here.';

export function FlagHistory({ ns, flag }: { ns: string; flag: Flag }) {
  // Rules name variants by id; the flag's current variants name them for the diff.
  const variantKeys = new Map((flag.variants ?? []).map((v) => [v.id, v.key] as const));
  const parts = flag.type === 'BOOLEAN_FLAG_TYPE' ? 'rollouts' : 'rules';
  return (
    <HistorySection ns={ns} what={`Every change to this flag, its variants and its ${parts}`}>
      <ChangeList scope={{ kind: 'flag', ns, key: flag.key }} context={{ variantKeys }} empty={EMPTY} />
    </HistorySection>
  );
}

export function SegmentHistory({ ns, segmentKey }: { ns: string; segmentKey: string }) {
  return (
    <HistorySection ns={ns} what="Every change to this segment and its constraints">
      <ChangeList scope={{ kind: 'segment', ns, key: segmentKey }} empty={EMPTY} />
    </HistorySection>
  );
}
