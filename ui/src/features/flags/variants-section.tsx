// A variant flag's variants: list, add, edit, delete, and the default variant.

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import * as api from '../../api/api.js';
import { keys } from '../../api/queries.js';
import type { Flag, Variant } from '../../api/types.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { useNotify } from '../../components/notices.js';
import { useFocusWhenClosed } from '../../lib/focus.js';
import { prettyJson } from '../../lib/json.js';
import { DefaultVariantSelect } from './default-variant-select.js';
import { VariantForm } from './variant-form.js';

export function VariantsSection({ flag }: { flag: Flag }) {
  const ns = flag.namespaceKey || 'default';
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  // A closed form hands focus back to the button that opened it, not to <body>.
  useFocusWhenClosed(editing, (closed) => (closed === 'new' ? 'add-variant' : `edit-variant-${closed}`));

  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.flag(ns, flag.key) }),
      queryClient.invalidateQueries({ queryKey: keys.rules(ns, flag.key) }),
      queryClient.invalidateQueries({ queryKey: keys.flags(ns) }),
    ]);
  };

  const row = (v: Variant) =>
    editing === v.id ? (
      <li key={v.id} className="list-item">
        <VariantForm
          initial={v}
          scope={{ kind: 'flag', ns, key: flag.key }}
          onCancel={() => setEditing(null)}
          onSave={async (input, ifMatch) => {
            await api.updateVariant(ns, flag.key, v.id, input, { ifMatch });
            await refresh();
            notify(`Variant "${input.key}" saved`);
            setEditing(null);
          }}
        />
      </li>
    ) : (
      <li key={v.id} className="list-item row-between">
        <div className="grow">
          <p className="item-title">
            <code className="key key-strong">{v.key}</code>
            {v.name ? <span> {v.name}</span> : null}
            {flag.defaultVariant?.id === v.id ? <span className="badge badge-default">default</span> : null}
          </p>
          {v.description ? <p className="muted">{v.description}</p> : null}
          {v.attachment ? (
            <details className="attachment">
              <summary>Attachment</summary>
              <pre className="code">{prettyJson(v.attachment)}</pre>
            </details>
          ) : null}
        </div>
        <div className="row-actions">
          <button
            id={`edit-variant-${v.id}`}
            type="button"
            className="btn btn-small"
            onClick={() => setEditing(v.id)}
            aria-label={`Edit variant ${v.key}`}
          >
            Edit
          </button>
          <DeleteButton
            small
            label="Delete"
            accessibleLabel={`Delete variant ${v.key}`}
            title={`Delete variant "${v.key}"?`}
            onConfirm={async () => {
              await api.deleteVariant(ns, flag.key, v.id);
              await refresh();
              notify(`Variant "${v.key}" deleted`);
            }}
          >
            <p>
              Rules stop sending traffic to it (their percentages for it are removed), and it stops being the default
              variant. This cannot be undone.
            </p>
          </DeleteButton>
        </div>
      </li>
    );

  return (
    <section className="card" aria-labelledby="variants-title">
      <div className="row-between">
        <h2 id="variants-title">Variants</h2>
        {editing === 'new' ? null : (
          <button id="add-variant" type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            Add variant
          </button>
        )}
      </div>
      {editing === 'new' ? (
        <VariantForm
          onCancel={() => setEditing(null)}
          onSave={async (input) => {
            await api.createVariant(ns, flag.key, input);
            await refresh();
            notify(`Variant "${input.key}" added`);
            setEditing(null);
          }}
        />
      ) : null}
      {flag.variants.length === 0 && editing !== 'new' ? (
        <EmptyState title="No variants yet">
          Add the values this flag can return, for example "control" and "treatment".
        </EmptyState>
      ) : null}
      {flag.variants.length ? (
        <ul className="list" aria-label="Variants">
          {flag.variants.map(row)}
        </ul>
      ) : null}
      {flag.variants.length ? <DefaultVariantSelect flag={flag} /> : null}
    </section>
  );
}
