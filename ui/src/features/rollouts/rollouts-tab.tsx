// The rollouts of a boolean flag, evaluated top to bottom; the first that matches decides the value,
// otherwise the flag's default value applies. Create, edit, delete and reorder (PUT …/rollouts/order).

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import * as api from '../../api/api.js';
import { keys, useRollouts, useSegments } from '../../api/queries.js';
import type { Flag } from '../../api/types.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { useNotify } from '../../components/notices.js';
import { ReorderList } from '../../components/reorder-list.js';
import { useFocusWhenClosed } from '../../lib/focus.js';
import { usePermissions } from '../auth/use-permissions.js';
import { RolloutCard } from './rollout-card.js';
import { RolloutForm } from './rollout-form.js';

export function RolloutsTab({ flag }: { flag: Flag }) {
  const ns = flag.namespaceKey || 'default';
  const rollouts = useRollouts(ns, flag.key);
  // Read-only without the editor role (the page's fieldset turns the buttons off; dragging too).
  const mayEdit = usePermissions().can('edit', ns);
  const segments = useSegments(ns);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  // A closed form hands focus back to the button that opened it, not to <body>.
  useFocusWhenClosed(editing, (closed) => (closed === 'new' ? 'add-rollout' : `edit-rollout-${closed}`));
  const [reorderError, setReorderError] = useState<unknown>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.rollouts(ns, flag.key) });
  const list = rollouts.data ?? [];
  const segmentList = segments.data ?? [];

  return (
    <section className="stack" aria-labelledby="rollouts-title">
      <div className="row-between">
        <div>
          <h2 id="rollouts-title">Rollouts</h2>
          <p className="muted">Evaluated from the top; the first rollout that matches decides the value.</p>
        </div>
        {editing === 'new' ? null : (
          <button
            id="add-rollout"
            type="button"
            className="btn btn-primary"
            onClick={() => setEditing('new')}
            disabled={!segments.data}
          >
            Add rollout
          </button>
        )}
      </div>
      <ErrorNote error={rollouts.error ?? segments.error} />
      {editing === 'new' && segments.data ? (
        <RolloutForm
          ns={ns}
          segments={segmentList}
          onCancel={() => setEditing(null)}
          onSave={async (description, rule) => {
            // Rollout ranks must be unique (behavior.md §3.4): take the next free one.
            const rank = list.reduce((max, r) => Math.max(max, r.rank), 0) + 1;
            await api.createRollout(ns, flag.key, rank, description, rule);
            await refresh();
            notify('Rollout created');
            setEditing(null);
          }}
        />
      ) : null}
      {rollouts.isPending ? <Loading label="Loading rollouts…" /> : null}
      {rollouts.data && list.length === 0 && editing !== 'new' ? (
        <EmptyState title="No rollouts yet">
          Everyone gets the default value <code>{String(flag.enabled)}</code>. Add a rollout to give a percentage of
          entities, or a segment, a different value.
        </EmptyState>
      ) : null}
      <ErrorNote error={reorderError} />
      {list.length ? (
        <ReorderList
          label="Rollouts in evaluation order"
          items={list}
          idOf={(r) => r.id}
          labelOf={(_, position) => `rollout ${position + 1}`}
          locked={editing !== null || !mayEdit}
          onReorder={async (ids) => {
            setReorderError(null);
            try {
              await api.orderRollouts(ns, flag.key, ids);
              notify('Rollout order saved');
            } catch (err) {
              setReorderError(err);
              throw err;
            } finally {
              await refresh();
            }
          }}
          render={(rollout, position) =>
            editing === rollout.id ? (
              <RolloutForm
                ns={ns}
                segments={segmentList}
                initial={rollout}
                flagKey={flag.key}
                onCancel={() => setEditing(null)}
                onSave={async (description, rule, ifMatch) => {
                  await api.updateRollout(ns, flag.key, rollout.id, description, rule, { ifMatch });
                  await refresh();
                  notify(`Rollout ${position + 1} saved`);
                  setEditing(null);
                }}
              />
            ) : (
              <div className="row-between">
                <RolloutCard ns={ns} rollout={rollout} position={position} segments={segmentList} />
                <div className="row-actions">
                  <button
                    id={`edit-rollout-${rollout.id}`}
                    type="button"
                    className="btn btn-small"
                    onClick={() => setEditing(rollout.id)}
                    aria-label={`Edit rollout ${position + 1}`}
                  >
                    Edit
                  </button>
                  <DeleteButton
                    small
                    label="Delete"
                    accessibleLabel={`Delete rollout ${position + 1}`}
                    title={`Delete rollout ${position + 1}?`}
                    onConfirm={async () => {
                      await api.deleteRollout(ns, flag.key, rollout.id);
                      await refresh();
                      notify(`Rollout ${position + 1} deleted`);
                    }}
                  >
                    <p>Entities it matched will fall through to the next rollout or the default value.</p>
                  </DeleteButton>
                </div>
              </div>
            )
          }
        />
      ) : null}
      <p className="fallthrough">
        When no rollout matches:{' '}
        <span className={`status ${flag.enabled ? 'status-on' : 'status-off'}`}>{String(flag.enabled)}</span> (the
        flag's default value, switched at the top of the page).
      </p>
    </section>
  );
}
