// The rules of a variant flag, evaluated top to bottom: the first rule whose segments match decides.
// Create, edit, delete and reorder (PUT …/rules/order).

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import * as api from '../../api/api.js';
import { keys, useRules, useSegments } from '../../api/queries.js';
import type { Flag } from '../../api/types.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { useNotify } from '../../components/notices.js';
import { ReorderList } from '../../components/reorder-list.js';
import { useFocusWhenClosed } from '../../lib/focus.js';
import { usePermissions } from '../auth/use-permissions.js';
import { RuleCard } from './rule-card.js';
import { RuleForm } from './rule-form.js';
import { createRuleWithDistributions, updateRuleWithDistributions } from './save-rule.js';

export function RulesTab({ flag }: { flag: Flag }) {
  const ns = flag.namespaceKey || 'default';
  const rules = useRules(ns, flag.key);
  // Read-only without the editor role (the page's fieldset turns the buttons off; dragging too).
  const mayEdit = usePermissions().can('edit', ns);
  const segments = useSegments(ns);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  // A closed form hands focus back to the button that opened it, not to <body>.
  useFocusWhenClosed(editing, (closed) => (closed === 'new' ? 'add-rule' : `edit-rule-${closed}`));
  const [reorderError, setReorderError] = useState<unknown>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.rules(ns, flag.key) });
  const list = rules.data ?? [];
  const segmentList = segments.data ?? [];

  return (
    <section className="stack" aria-labelledby="rules-title">
      <div className="row-between">
        <div>
          <h2 id="rules-title">Rules</h2>
          <p className="muted">Evaluated from the top; the first rule whose segments match decides the variant.</p>
        </div>
        {editing === 'new' ? null : (
          <button
            id="add-rule"
            type="button"
            className="btn btn-primary"
            onClick={() => setEditing('new')}
            disabled={!segments.data}
          >
            Add rule
          </button>
        )}
      </div>
      {flag.enabled ? null : (
        <p className="warning">
          This flag is disabled: rules are skipped and everyone gets the default variant until it is enabled.
        </p>
      )}
      <ErrorNote error={rules.error ?? segments.error} />
      {editing === 'new' && segments.data ? (
        <RuleForm
          ns={ns}
          flag={flag}
          segments={segmentList}
          onCancel={() => setEditing(null)}
          onSave={async (selection, distributions) => {
            const rank = list.reduce((max, r) => Math.max(max, r.rank), 0) + 1;
            await createRuleWithDistributions(ns, flag.key, rank, selection, distributions);
            await refresh();
            notify('Rule created');
            setEditing(null);
          }}
        />
      ) : null}
      {rules.isPending ? <Loading label="Loading rules…" /> : null}
      {rules.data && list.length === 0 && editing !== 'new' ? (
        <EmptyState title="No rules yet">
          Without rules everyone gets {flag.defaultVariant ? <code>{flag.defaultVariant.key}</code> : 'no variant'}. Add
          a rule to target a segment.
        </EmptyState>
      ) : null}
      <ErrorNote error={reorderError} />
      {list.length ? (
        <ReorderList
          label="Rules in evaluation order"
          items={list}
          idOf={(r) => r.id}
          labelOf={(_, position) => `rule ${position + 1}`}
          locked={editing !== null || !mayEdit}
          onReorder={async (ids) => {
            setReorderError(null);
            try {
              await api.orderRules(ns, flag.key, ids);
              notify('Rule order saved');
            } catch (err) {
              setReorderError(err);
              throw err;
            } finally {
              await refresh();
            }
          }}
          render={(rule, position) =>
            editing === rule.id ? (
              <RuleForm
                ns={ns}
                flag={flag}
                segments={segmentList}
                initial={rule}
                onCancel={() => setEditing(null)}
                onSave={async (selection, distributions, ifMatch) => {
                  try {
                    await updateRuleWithDistributions(ns, flag.key, rule, selection, distributions, ifMatch);
                  } finally {
                    await refresh();
                  }
                  notify(`Rule ${position + 1} saved`);
                  setEditing(null);
                }}
              />
            ) : (
              <div className="row-between">
                <RuleCard ns={ns} flag={flag} rule={rule} position={position} segments={segmentList} />
                <div className="row-actions">
                  <button
                    id={`edit-rule-${rule.id}`}
                    type="button"
                    className="btn btn-small"
                    onClick={() => setEditing(rule.id)}
                    aria-label={`Edit rule ${position + 1}`}
                  >
                    Edit
                  </button>
                  <DeleteButton
                    small
                    label="Delete"
                    accessibleLabel={`Delete rule ${position + 1}`}
                    title={`Delete rule ${position + 1}?`}
                    onConfirm={async () => {
                      await api.deleteRule(ns, flag.key, rule.id);
                      await refresh();
                      notify(`Rule ${position + 1} deleted`);
                    }}
                  >
                    <p>Entities it matched will fall through to the next rule or the default.</p>
                  </DeleteButton>
                </div>
              </div>
            )
          }
        />
      ) : null}
      {list.length ? (
        <p className="fallthrough">
          When no rule matches: {flag.defaultVariant ? <code>{flag.defaultVariant.key}</code> : 'no variant'} (the
          default variant).
        </p>
      ) : null}
    </section>
  );
}
