// The constraints of a segment: list, add, edit, delete.

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import * as api from '../../api/api.js';
import { keys } from '../../api/queries.js';
import type { Segment } from '../../api/types.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { useNotify } from '../../components/notices.js';
import { comparisonTypeLabel, operatorLabel } from '../../lib/operators.js';
import { ConstraintEditor } from './constraint-editor.js';
import { ConstraintValue } from './constraint-value.js';

export function ConstraintsSection({ segment }: { segment: Segment }) {
  const ns = segment.namespaceKey || 'default';
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.segment(ns, segment.key) }),
      queryClient.invalidateQueries({ queryKey: keys.segments(ns) }),
    ]);

  return (
    <section className="card" aria-labelledby="constraints-title">
      <div className="row-between">
        <div>
          <h2 id="constraints-title">Constraints</h2>
          <p className="muted">
            An entity is in this segment when it matches {segment.matchType === 'ANY_MATCH_TYPE' ? 'any' : 'all'} of
            these.
          </p>
        </div>
        {editing === 'new' ? null : (
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            Add constraint
          </button>
        )}
      </div>
      {editing === 'new' ? (
        <ConstraintEditor
          onCancel={() => setEditing(null)}
          onSave={async (input) => {
            await api.createConstraint(ns, segment.key, input);
            await refresh();
            notify(`Constraint on "${input.property}" added`);
            setEditing(null);
          }}
        />
      ) : null}
      {segment.constraints.length === 0 && editing !== 'new' ? (
        <EmptyState title="No constraints">
          A segment without constraints matches every entity
          {segment.matchType === 'ANY_MATCH_TYPE' ? ' (with "any", none)' : ''}. Add one to narrow it down.
        </EmptyState>
      ) : null}
      {segment.constraints.length ? (
        <ul className="list" aria-label="Constraints">
          {segment.constraints.map((c) =>
            editing === c.id ? (
              <li key={c.id} className="list-item">
                <ConstraintEditor
                  initial={c}
                  onCancel={() => setEditing(null)}
                  onSave={async (input) => {
                    await api.updateConstraint(ns, segment.key, c.id, input);
                    await refresh();
                    notify(`Constraint on "${input.property}" saved`);
                    setEditing(null);
                  }}
                />
              </li>
            ) : (
              <li key={c.id} className="list-item row-between">
                <div>
                  <p className="constraint-line">
                    <code className="key-strong">{c.property}</code>{' '}
                    <span className="op">{operatorLabel(c.type, c.operator)}</span> <ConstraintValue constraint={c} />
                  </p>
                  <p className="muted">
                    {comparisonTypeLabel(c.type)}
                    {c.description ? ` · ${c.description}` : ''}
                  </p>
                </div>
                <div className="row-actions">
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => setEditing(c.id)}
                    aria-label={`Edit constraint on ${c.property}`}
                  >
                    Edit
                  </button>
                  <DeleteButton
                    small
                    label="Delete"
                    accessibleLabel={`Delete constraint on ${c.property}`}
                    title={`Delete the constraint on "${c.property}"?`}
                    onConfirm={async () => {
                      await api.deleteConstraint(ns, segment.key, c.id);
                      await refresh();
                      notify(`Constraint on "${c.property}" deleted`);
                    }}
                  >
                    <p>The segment will match entities this constraint used to exclude.</p>
                  </DeleteButton>
                </div>
              </li>
            ),
          )}
        </ul>
      ) : null}
    </section>
  );
}
