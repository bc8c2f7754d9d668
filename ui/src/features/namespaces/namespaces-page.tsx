// Settings → Namespaces: list, create, edit and delete namespaces (the protected `default` cannot be
// deleted here); export one as a file, import a file, copy one under a new key (namespace-transfer.tsx).

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import * as api from '../../api/api.js';
import { keys, useNamespaces } from '../../api/queries.js';
import type { Namespace } from '../../api/types.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { NotAllowedNote } from '../../components/not-allowed.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { Link, paths } from '../../lib/router.js';
import { usePermissions } from '../auth/use-permissions.js';
import { NamespaceForm } from './namespace-form.js';
import { CopyNamespaceForm, ExportButton, ImportPanel } from './namespace-transfer.js';

function ForceCheckbox({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      Also delete every flag in it (needed when it still has flags)
    </label>
  );
}

function NamespaceRow({
  namespace,
  editing,
  onEdit,
}: {
  namespace: Namespace;
  editing: boolean;
  onEdit: (key: string | null) => void;
}) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [force, setForce] = useState(false);
  const [copying, setCopying] = useState(false);
  const counts = useNamespaceCounts(namespace.key);
  // Each action only for those whose roles allow it (issue 41); the others are not offered.
  const permissions = usePermissions();
  const mayChangeSettings = permissions.can('settings', namespace.key);
  const mayCreate = permissions.can('create-namespace', namespace.key);
  const mayDelete = permissions.can('delete-namespace', namespace.key);
  if (editing) {
    return (
      <li className="list-item">
        <NamespaceForm
          initial={namespace}
          onCancel={() => onEdit(null)}
          onSave={async (input) => {
            await api.updateNamespace(namespace.key, { name: input.name, description: input.description });
            await queryClient.invalidateQueries({ queryKey: keys.namespaces });
            notify(`Namespace "${namespace.key}" saved`);
            onEdit(null);
          }}
        />
      </li>
    );
  }
  return (
    <li className="list-item">
      <div className="row-between">
        <div>
          <p className="item-title">
            <Link to={paths.flags(namespace.key)}>{namespace.name}</Link> <code className="key">{namespace.key}</code>
            {namespace.protected ? <span className="badge">protected</span> : null}
          </p>
          {namespace.description ? <p className="muted">{namespace.description}</p> : null}
          <p className="muted namespace-counts">
            {counts.data
              ? `${plural(counts.data.flags, 'flag')}, ${plural(counts.data.segments, 'segment')}`
              : counts.error
                ? 'counts unavailable'
                : 'counting…'}
          </p>
        </div>
        <div className="row-actions">
          {mayChangeSettings ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => onEdit(namespace.key)}
              aria-label={`Edit namespace ${namespace.key}`}
            >
              Edit
            </button>
          ) : null}
          <ExportButton namespaceKey={namespace.key} />
          {mayCreate ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setCopying(true)}
              aria-label={`Copy namespace ${namespace.key}`}
              aria-expanded={copying}
            >
              Copy
            </button>
          ) : null}
          {namespace.protected || !mayDelete ? null : (
            <DeleteButton
              small
              label="Delete"
              accessibleLabel={`Delete namespace ${namespace.key}`}
              title={`Delete namespace "${namespace.key}"?`}
              extra={<ForceCheckbox checked={force} onChange={setForce} />}
              onConfirm={async () => {
                await api.deleteNamespace(namespace.key, force);
                await queryClient.invalidateQueries({ queryKey: keys.namespaces });
                notify(`Namespace "${namespace.key}" deleted`);
              }}
            >
              <p>
                Its segments and everything else in it are deleted too. Applications asking for it will get errors. This
                cannot be undone.
              </p>
            </DeleteButton>
          )}
        </div>
      </div>
      {/* Below its row, which stays in view: what is copied is still on screen. */}
      {copying ? <CopyNamespaceForm source={namespace.key} onClose={() => setCopying(false)} /> : null}
    </li>
  );
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** How many flags and segments a namespace holds: one small read of each list's total. */
function useNamespaceCounts(ns: string) {
  return useQuery({
    queryKey: ['namespace-counts', ns],
    queryFn: async () => {
      const [flags, segments] = await Promise.all([api.countFlags(ns), api.countSegments(ns)]);
      return { flags, segments };
    },
  });
}

export function NamespacesPage() {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const namespaces = useNamespaces();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const permissions = usePermissions();
  const createWhy = permissions.reasonEverywhere('create-namespace');
  const mayImport = permissions.canSomewhere('import');

  return (
    <>
      <PageHeader
        title="Namespaces"
        actions={
          <>
            {importing || !mayImport ? null : (
              <button type="button" className="btn" onClick={() => setImporting(true)}>
                Import
              </button>
            )}
            {creating || createWhy ? null : (
              <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                New namespace
              </button>
            )}
          </>
        }
      />
      <p className="lead">
        Namespaces keep separate sets of flags and segments, for example one per team or environment.
      </p>
      <NotAllowedNote reason={createWhy} />
      {importing ? <ImportPanel onClose={() => setImporting(false)} /> : null}
      {creating ? (
        <NamespaceForm
          onCancel={() => setCreating(false)}
          onSave={async (input) => {
            await api.createNamespace(input);
            await queryClient.invalidateQueries({ queryKey: keys.namespaces });
            notify(`Namespace "${input.key}" created`);
            setCreating(false);
          }}
        />
      ) : null}
      {namespaces.isPending ? <Loading /> : null}
      <ErrorNote error={namespaces.error} />
      {namespaces.data && namespaces.data.length === 0 ? (
        <EmptyState title="No namespaces">
          {createWhy ? 'You may not read any namespace.' : 'Create one to start adding flags.'}
        </EmptyState>
      ) : null}
      {namespaces.data?.length ? (
        <ul className="list card" aria-label="Namespaces">
          {namespaces.data.map((n) => (
            <NamespaceRow key={n.key} namespace={n} editing={editing === n.key} onEdit={setEditing} />
          ))}
        </ul>
      ) : null}
    </>
  );
}
