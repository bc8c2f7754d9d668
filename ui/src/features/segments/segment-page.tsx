// One segment: details (name, description, match type), its constraints, delete, and its history.

import { useQueryClient } from '@tanstack/react-query';
import * as api from '../../api/api.js';
import { ApiError } from '../../api/client.js';
import { useNamespaceChanges } from '../../api/namespace-changes.js';
import { keys, useSegment } from '../../api/queries.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { NotAllowedNote, ReadOnlyWhen } from '../../components/not-allowed.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { Tabs } from '../../components/tabs.js';
import { Link, navigate, paths } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';
import { SegmentHistory } from '../history/history-tab.js';
import { CopyToNamespace } from '../transfer/copy-to-namespace.js';
import { ConstraintsSection } from './constraints-section.js';
import { SegmentForm } from './segment-form.js';
import { SegmentInUse, SegmentUsage } from './segment-usage.js';

export function SegmentPage({
  ns,
  segmentKey,
  tab = 'details',
}: {
  ns: string;
  segmentKey: string;
  tab?: 'details' | 'history';
}) {
  const segment = useSegment(ns, segmentKey);
  // Someone else's change refreshes this page, as a flag's (when event streams are on), so an open
  // form learns of it (history/edit-conflict.tsx).
  const { needLogin } = useAuth();
  useNamespaceChanges(ns, needLogin);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const crumbs = [{ label: 'Segments', to: paths.segments(ns) }];
  const permissions = usePermissions();
  const editWhy = permissions.reason('edit', ns);

  if (segment.isPending) return <Loading label="Loading segment…" />;
  if (segment.error) {
    const missing = segment.error instanceof ApiError && segment.error.status === 404;
    return (
      <>
        <PageHeader title={segmentKey} crumbs={crumbs} />
        {missing ? (
          <EmptyState title="This segment does not exist">
            <p>
              A deleted segment can be restored from{' '}
              <Link to={paths.activity(ns, { type: 'segment', key: segmentKey })}>its activity</Link>.
            </p>
            <Link to={paths.segments(ns)}>Back to segments</Link>
          </EmptyState>
        ) : (
          <ErrorNote error={segment.error} />
        )}
      </>
    );
  }
  const s = segment.data;
  return (
    <>
      <PageHeader
        title={s.name || s.key}
        crumbs={crumbs}
        badge={<code className="key">{s.key}</code>}
        actions={
          <>
            {permissions.canSomewhere('edit') ? <CopyToNamespace kind="segment" ns={ns} itemKey={s.key} /> : null}
            {editWhy ? null : (
              <DeleteButton
                label="Delete segment"
                title={`Delete segment "${s.key}"?`}
                onConfirm={async () => {
                  await api.deleteSegment(ns, s.key);
                  queryClient.removeQueries({ queryKey: keys.segment(ns, s.key) });
                  await queryClient.invalidateQueries({ queryKey: keys.segments(ns) });
                  notify(`Segment "${s.key}" deleted`);
                  navigate(paths.segments(ns));
                }}
              >
                <SegmentInUse ns={ns} segmentKey={s.key} />
                <p>
                  Its constraints are deleted too. A segment still used by a rule or rollout cannot be deleted; remove
                  those first. You can restore a deleted segment by reverting the deletion in Activity.
                </p>
              </DeleteButton>
            )}
          </>
        }
      />
      <NotAllowedNote reason={editWhy} />
      <Tabs
        label="Segment sections"
        current={tab === 'history' ? paths.segment(ns, s.key, 'history') : paths.segment(ns, s.key)}
        tabs={[
          { to: paths.segment(ns, s.key), label: 'Details' },
          { to: paths.segment(ns, s.key, 'history'), label: 'History' },
        ]}
      />
      {tab === 'history' ? (
        <SegmentHistory ns={ns} segmentKey={s.key} />
      ) : (
        <div className="stack">
          <ReadOnlyWhen reason={editWhy}>
            <SegmentForm
              initial={s}
              submitLabel="Save details"
              onSave={async (input, ifMatch) => {
                await api.updateSegment(
                  ns,
                  s.key,
                  { name: input.name, description: input.description, matchType: input.matchType },
                  { ifMatch },
                );
                await queryClient.invalidateQueries({ queryKey: keys.segment(ns, s.key) });
                await queryClient.invalidateQueries({ queryKey: keys.segments(ns) });
                notify(`Segment "${s.key}" saved`);
              }}
            />
            <ConstraintsSection segment={s} />
          </ReadOnlyWhen>
          <SegmentUsage ns={ns} segmentKey={s.key} />
        </div>
      )}
    </>
  );
}
