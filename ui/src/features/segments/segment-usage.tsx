// The flags whose rules or rollouts use a segment, linked. One read: the namespace's export already
// holds every flag with its rules and rollouts, where listing them would take a call per flag.

import { useQuery } from '@tanstack/react-query';
import * as api from '../../api/api.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { Link, paths } from '../../lib/router.js';
import { parseExport, segmentKeysIn } from '../transfer/copy-document.js';

interface Usage {
  key: string;
  name: string;
  where: string[];
}

export function flagsUsingSegment(exportText: string, segmentKey: string): Usage[] {
  const doc = parseExport(exportText);
  const out: Usage[] = [];
  for (const flag of doc.flags ?? []) {
    const where: string[] = [];
    const rules = Array.isArray(flag.rules) ? flag.rules : [];
    rules.forEach((rule, i) => {
      if (rule && typeof rule === 'object' && !Array.isArray(rule) && segmentKeysIn(rule.segment).includes(segmentKey))
        where.push(`rule ${i + 1}`);
    });
    const rollouts = Array.isArray(flag.rollouts) ? flag.rollouts : [];
    rollouts.forEach((rollout, i) => {
      if (
        rollout &&
        typeof rollout === 'object' &&
        !Array.isArray(rollout) &&
        segmentKeysIn(rollout.segment).includes(segmentKey)
      )
        where.push(`rollout ${i + 1}`);
    });
    if (where.length) out.push({ key: String(flag.key), name: String(flag.name ?? flag.key), where });
  }
  return out;
}

const useSegmentUsage = (ns: string, segmentKey: string) =>
  useQuery({
    queryKey: ['segment-usage', ns, segmentKey],
    queryFn: async () => flagsUsingSegment(await api.exportNamespace(ns, 'json'), segmentKey),
  });

/**
 * What a delete of the segment would meet, said in its confirmation before anything is tried: the
 * flags and their rules or rollouts that use it (the server refuses to delete a segment in use).
 */
export function SegmentInUse({ ns, segmentKey }: { ns: string; segmentKey: string }) {
  const usage = useSegmentUsage(ns, segmentKey);
  if (usage.isPending) return <Loading label="Finding the flags that use it…" />;
  if (!usage.data?.length) return null;
  return (
    <div className="warning" role="note">
      <p>
        <strong>It is in use</strong>, so it cannot be deleted until these stop using it:
      </p>
      <ul aria-label="Flags using this segment">
        {usage.data.map((u) => (
          <li key={u.key}>
            flag <code className="key">{u.key}</code>: {u.where.join(', ')}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function SegmentUsage({ ns, segmentKey }: { ns: string; segmentKey: string }) {
  const usage = useSegmentUsage(ns, segmentKey);
  return (
    <section className="card" aria-labelledby="segment-usage-title">
      <h2 id="segment-usage-title">Used by</h2>
      {usage.isPending ? <Loading label="Finding the flags that use it…" /> : null}
      <ErrorNote error={usage.error} />
      {usage.data && usage.data.length === 0 ? (
        <EmptyState title="No flag uses this segment">
          <p>Rules of variant flags and rollouts of boolean flags can target it.</p>
        </EmptyState>
      ) : null}
      {usage.data?.length ? (
        <ul className="list" aria-label="Flags using this segment">
          {usage.data.map((u) => (
            <li key={u.key} className="list-item">
              <Link to={paths.flag(ns, u.key)}>{u.name}</Link> <code className="key">{u.key}</code>{' '}
              <span className="muted">({u.where.join(', ')})</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
