// "My access" (issue 41): who the server takes the caller to be, the roles it holds per namespace and
// what each lets it do, so a hidden button is never a mystery.

import type { Authentication } from '../../api/types.js';
import { EmptyState } from '../../components/empty-state.js';
import { PageHeader } from '../../components/page-header.js';
import { type Access, ALL_NAMESPACES, abilitiesOf } from '../../lib/permissions.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';

const METHOD_NAMES: Record<string, string> = {
  METHOD_TOKEN: 'API token',
  METHOD_OIDC: 'OpenID Connect',
  METHOD_GITHUB: 'GitHub',
  METHOD_KUBERNETES: 'Kubernetes service account',
  METHOD_JWT: 'JSON Web Token',
};

function whoOf(self: Authentication): string | undefined {
  const m = self.metadata ?? {};
  return (
    m['io.flipt.auth.name'] ||
    m['io.flipt.auth.email'] ||
    m['io.flipt.auth.token.name'] ||
    m['io.flipt.auth.github.preferred_username'] ||
    undefined
  );
}

function Source({ access, required }: { access: Access; required: boolean | undefined }) {
  if (!required) return <p className="lead">This server does not require signing in: everyone may do everything.</p>;
  if (access.source === 'scoped-token') {
    return (
      <p className="lead">
        Your token was made without roles and is limited to one namespace: you may read and change everything in it, but
        not manage tokens.
      </p>
    );
  }
  if (access.source === 'unrestricted') {
    return <p className="lead">You were signed in without roles: you may do everything, in every namespace.</p>;
  }
  return (
    <p className="lead">
      What you may do depends on your role in each namespace; each role includes the ones before it.
    </p>
  );
}

export function MyAccessPage() {
  const { self, required, person } = useAuth();
  const { access } = usePermissions();
  const email = self?.metadata?.['io.flipt.auth.email'];
  return (
    <>
      <PageHeader title="My access" />
      <Source access={access} required={required} />
      {self ? (
        <dl className="facts card" aria-label="Who you are">
          <div>
            <dt>Signed in with</dt>
            <dd>{METHOD_NAMES[self.method] ?? self.method}</dd>
          </div>
          <div>
            <dt>Name</dt>
            <dd>{person?.name ?? whoOf(self) ?? <span className="muted">not given</span>}</dd>
          </div>
          {email ? (
            <div>
              <dt>Email</dt>
              <dd>{email}</dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      <h2>Your roles</h2>
      {access.roles.length === 0 ? (
        <EmptyState title="No roles">
          <p>
            You may sign in but not use any namespace. An administrator can give you a role, by a rule in the server's
            configuration or by a role binding.
          </p>
        </EmptyState>
      ) : (
        <table className="table table-cards">
          <caption className="sr-only">Your roles per namespace</caption>
          <thead>
            <tr>
              <th scope="col">Namespace</th>
              <th scope="col">Role</th>
              <th scope="col">Lets you</th>
            </tr>
          </thead>
          <tbody>
            {access.roles.map((binding) => (
              <tr key={`${binding.namespace}:${binding.role}`}>
                <td data-label="Namespace">
                  {binding.namespace === ALL_NAMESPACES ? <em>every namespace</em> : <code>{binding.namespace}</code>}
                </td>
                <td data-label="Role">
                  <span className="role-badge">{binding.role}</span>
                </td>
                <td data-label="Lets you">
                  <ul className="abilities">
                    {abilitiesOf(binding.role).map((ability) => (
                      <li key={ability}>{ability}</li>
                    ))}
                    {binding.role === 'admin' && binding.namespace === ALL_NAMESPACES ? (
                      <li>create and delete namespaces, import replacing everything</li>
                    ) : null}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
