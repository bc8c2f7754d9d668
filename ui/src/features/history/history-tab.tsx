// The History tab of a flag (with its variants, rules, rollouts) or a segment (with its constraints).

import type { Flag } from '../../api/types.js';
import { Link, paths } from '../../lib/router.js';
import { ChangeList } from './change-list.js';

export function FlagHistory({ ns, flag }: { ns: string; flag: Flag }) {
  // Rules name variants by id; the flag's current variants name them for the diff.
  const variantKeys = new Map((flag.variants ?? []).map((v) => [v.id, v.key] as const));
  return (
    <section aria-labelledby="history-heading" className="stack">
      <h2 id="history-heading" className="sr-only">
        History
      </h2>
      <p className="lead">
        Every change to this flag, its variants and its {flag.type === 'BOOLEAN_FLAG_TYPE' ? 'rollouts' : 'rules'},
        newest first. The whole namespace is in <Link to={paths.activity(ns)}>Activity</Link>.
      </p>
      <ChangeList
        scope={{ kind: 'flag', ns, key: flag.key }}
        context={{ variantKeys }}
        empty="Changes made from now on appear here."
      />
    </section>
  );
}

export function SegmentHistory({ ns, segmentKey }: { ns: string; segmentKey: string }) {
  return (
    <section aria-labelledby="history-heading" className="stack">
      <h2 id="history-heading" className="sr-only">
        History
      </h2>
      <p className="lead">
        Every change to this segment and its constraints, newest first. The whole namespace is in{' '}
        <Link to={paths.activity(ns)}>Activity</Link>.
      </p>
      <ChangeList scope={{ kind: 'segment', ns, key: segmentKey }} empty="Changes made from now on appear here." />
    </section>
  );
}
