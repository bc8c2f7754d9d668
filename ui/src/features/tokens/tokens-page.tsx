// Settings → API tokens (when the server requires authentication): list, create (secret shown once),
// delete.

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import * as api from '../../api/api.js';
import { keys } from '../../api/queries.js';
import type { Authentication } from '../../api/types.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { formatDate } from '../../lib/format.js';
import { TokenForm } from './token-form.js';
import { TokenSecret } from './token-secret.js';

const NAME = 'io.flipt.auth.token.name';
const DESCRIPTION = 'io.flipt.auth.token.description';
const NAMESPACE = 'io.flipt.auth.token.namespace';

function methodLabel(method: string): string {
  return method.replace(/^METHOD_/, '').toLowerCase();
}

function tokenName(a: Authentication): string {
  return a.metadata?.[NAME] || a.metadata?.['io.flipt.auth.oidc.email'] || a.id;
}

/**
 * A token's roles (issue 41); a token without them may do everything within its namespace. A person's
 * session gets its roles from the sign-in rules each time it is used, so none are stored with it.
 */
function TokenRoles({ token }: { token: Authentication }) {
  const roles = token.roles;
  if (!roles)
    return <span className="muted">{token.method === 'METHOD_TOKEN' ? 'full access' : 'by sign-in rules'}</span>;
  if (roles.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="token-role-list">
      {roles.map((r) => (
        <li key={`${r.role}:${r.namespace}`}>
          <span className="role-badge">{r.role}</span> on {r.namespace === '*' ? 'every namespace' : r.namespace}
        </li>
      ))}
    </ul>
  );
}

export function TokensPage() {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const tokens = useInfiniteQuery({
    queryKey: keys.tokens,
    queryFn: ({ pageParam }) => api.listTokens(pageParam || undefined),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextPageToken || undefined,
  });
  const list = tokens.data?.pages.flatMap((p) => p.authentications) ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.tokens });

  return (
    <>
      <PageHeader
        title="API tokens"
        actions={
          creating ? null : (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New token
            </button>
          )
        }
      />
      <p className="lead">
        Applications and people use tokens to call the API. Anyone holding a token can use it, so delete tokens you no
        longer need.
      </p>
      {secret ? <TokenSecret token={secret} onDone={() => setSecret(null)} /> : null}
      {creating ? (
        <TokenForm
          onCancel={() => setCreating(false)}
          onSave={async (input) => {
            const created = await api.createToken(input);
            setSecret(created.clientToken);
            setCreating(false);
            await refresh();
            notify(`Token "${input.name}" created`);
          }}
        />
      ) : null}
      {tokens.isPending ? <Loading label="Loading tokens…" /> : null}
      <ErrorNote error={tokens.error} />
      {tokens.data && list.length === 0 ? (
        <EmptyState title="No tokens">Create one for each application or person that calls the API.</EmptyState>
      ) : null}
      {list.length ? (
        <table className="table table-cards">
          <caption className="sr-only">API tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Method</th>
              <th scope="col">Namespace</th>
              <th scope="col">Roles</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((a) => (
              <tr key={a.id}>
                <td data-label="Name">
                  <strong>{tokenName(a)}</strong>
                  {a.metadata?.[DESCRIPTION] ? <p className="muted">{a.metadata[DESCRIPTION]}</p> : null}
                </td>
                <td data-label="Method">{methodLabel(a.method)}</td>
                <td data-label="Namespace">
                  {a.metadata?.[NAMESPACE] ?? <span className="muted">{a.roles ? 'as its roles say' : 'all'}</span>}
                </td>
                <td data-label="Roles">
                  <TokenRoles token={a} />
                </td>
                <td data-label="Created">{formatDate(a.createdAt)}</td>
                <td data-label="Expires">
                  {a.expiresAt ? formatDate(a.expiresAt) : <span className="muted">never</span>}
                </td>
                <td>
                  <DeleteButton
                    small
                    label="Delete"
                    accessibleLabel={`Delete token ${tokenName(a)}`}
                    title={`Delete token "${tokenName(a)}"?`}
                    onConfirm={async () => {
                      await api.deleteToken(a.id);
                      await refresh();
                      notify(`Token "${tokenName(a)}" deleted`);
                    }}
                  >
                    <p>
                      Everything using this token stops working. If it is the token you signed in with, you will be
                      asked for another one.
                    </p>
                  </DeleteButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {tokens.hasNextPage ? (
        <button
          type="button"
          className="btn"
          onClick={() => tokens.fetchNextPage()}
          disabled={tokens.isFetchingNextPage}
        >
          {tokens.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </>
  );
}
