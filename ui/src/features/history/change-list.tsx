// A page of recorded changes, newest first, each with who, when, what and a readable diff, and a
// "Load more" button that follows the server's nextPageToken.

import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { DateTime } from '../../components/date-time.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { Link, paths } from '../../lib/router.js';
import { usePermissions } from '../auth/use-permissions.js';
import { ChangeDiff } from './change-diff.js';
import { actorLabel, canRevert, changeOwner, changeSummary } from './describe.js';
import type { DiffContext } from './diff.js';
import { type Change, type HistoryScope, historyKeys, listChanges } from './history-api.js';
import { RevertButton } from './revert-dialog.js';

/** Consecutive changes of one action (an import, a namespace's delete or revert: one batch). */
function groupByAction(list: Change[]): Change[][] {
  const groups: Change[][] = [];
  for (const c of list) {
    const last = groups.at(-1);
    if (last && c.batch && last[0]?.batch === c.batch) last.push(c);
    else groups.push([c]);
  }
  return groups;
}

/**
 * `compact` (the Activity page): each entry's diff is folded until asked for, and the changes of one
 * action are one entry that unfolds into them.
 */
export function ChangeList({
  scope,
  context,
  empty,
  compact = false,
}: {
  scope: HistoryScope;
  context?: DiffContext;
  empty: string;
  compact?: boolean;
}) {
  const changes = useInfiniteQuery({
    queryKey: historyKeys.list(scope),
    queryFn: ({ pageParam, signal }) => listChanges(scope, pageParam || undefined, signal),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextPageToken || undefined,
  });
  const list = changes.data?.pages.flatMap((p) => p.changes) ?? [];

  // "Load more" moves focus to the first change it brought, so keyboard users continue from there.
  const focusFrom = useRef<number | null>(null);
  const firstNewId = focusFrom.current !== null ? list[focusFrom.current]?.id : undefined;
  useEffect(() => {
    if (!firstNewId) return;
    focusFrom.current = null;
    document.getElementById(`change-${firstNewId}`)?.focus();
  }, [firstNewId]);

  if (changes.isPending) return <Loading label="Loading history…" />;
  if (changes.error) return <ErrorNote error={changes.error} />;
  if (list.length === 0) return <EmptyState title="No changes recorded">{empty}</EmptyState>;

  const byId = new Map(list.map((c) => [c.id, c]));
  return (
    <>
      <ol
        className={compact ? 'list card change-list change-list-compact' : 'list card change-list'}
        aria-label="Changes, newest first"
      >
        {compact
          ? groupByAction(list).map((group) =>
              group.length === 1 ? (
                <ChangeItem
                  key={group[0]?.id}
                  change={group[0] as Change}
                  reverted={group[0]?.reverts ? byId.get(group[0].reverts) : undefined}
                  context={context}
                  folded
                />
              ) : (
                <ActionGroup key={group[0]?.id} changes={group} byId={byId} context={context} />
              ),
            )
          : list.map((c) => (
              <ChangeItem
                key={c.id}
                change={c}
                reverted={c.reverts ? byId.get(c.reverts) : undefined}
                context={context}
              />
            ))}
      </ol>
      {changes.hasNextPage ? (
        <button
          type="button"
          className="btn load-more"
          onClick={() => {
            focusFrom.current = list.length;
            void changes.fetchNextPage();
          }}
          disabled={changes.isFetchingNextPage}
        >
          {changes.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </>
  );
}

/** The changes one action recorded, as one entry: what it was, then each change, folded. */
function ActionGroup({
  changes,
  byId,
  context,
}: {
  changes: Change[];
  byId: Map<string, Change>;
  context?: DiffContext;
}) {
  const first = changes[0] as Change;
  const what = first.reverts ? 'One revert' : 'One action (an import or a namespace delete)';
  return (
    <li className="list-item change-group" id={`change-${first.id}`} tabIndex={-1} data-change-id={first.id}>
      <details>
        <summary>
          {what}: {changes.length} changes, by {actorLabel(first.actor)} · <DateTime iso={first.createdAt} relative />
        </summary>
        <ol className="list" aria-label="Changes of this action">
          {changes.map((c) => (
            <ChangeItem
              key={c.id}
              change={c}
              reverted={c.reverts ? byId.get(c.reverts) : undefined}
              context={context}
              folded
            />
          ))}
        </ol>
      </details>
    </li>
  );
}

function ChangeItem({
  change,
  reverted,
  context,
  folded = false,
}: {
  change: Change;
  reverted?: Change;
  context?: DiffContext;
  folded?: boolean;
}) {
  const owner = changeOwner(change);
  const ns = change.namespaceKey;
  // Reverting is editing (issue 41): offered only with the editor role on the change's namespace.
  const mayRevert = usePermissions().can('revert', ns || 'default');
  return (
    <li className="list-item change-item" id={`change-${change.id}`} tabIndex={-1} data-change-id={change.id}>
      <div className="row-between">
        <div>
          <p className="item-title">
            <span className={`badge change-action change-${change.action}`}>{change.action}</span>{' '}
            {changeSummary(change, context)}
            {change.reverts ? <span className="badge change-revert">revert</span> : null}
          </p>
          <p className="muted change-meta">
            by <strong className="change-actor">{actorLabel(change.actor)}</strong>
            {change.actor.ip ? ` from ${change.actor.ip}` : ''} · <DateTime iso={change.createdAt} relative />
            {change.batch ? ' · part of an import' : ''}
            {change.reverts
              ? ` · reverts ${reverted ? `“${changeSummary(reverted, context)}”` : 'an earlier change'}`
              : ''}
            {owner && ns ? (
              <>
                {' · '}
                <Link to={owner.kind === 'flag' ? paths.flag(ns, owner.key) : paths.segment(ns, owner.key)}>
                  Open {owner.kind} "{owner.key}"
                </Link>
              </>
            ) : null}
          </p>
        </div>
        {canRevert(change) && mayRevert ? <RevertButton change={change} context={context} /> : null}
      </div>
      {folded ? (
        <details className="change-details">
          <summary>What changed</summary>
          <ChangeDiff change={change} context={context} />
        </details>
      ) : (
        <ChangeDiff change={change} context={context} />
      )}
    </li>
  );
}
