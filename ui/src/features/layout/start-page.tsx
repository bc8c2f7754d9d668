// Where the dashboard opens for a caller with roles (issue 41): the remembered namespace (or `default`)
// only when the caller may use it, else the first it may use; flags when readable, the console when it
// may only evaluate; and a clear page when it may use nothing yet. Callers without roles keep the old
// start (app.tsx): the last namespace, else `default`.

import { useEffect } from 'react';
import { useNamespaces } from '../../api/queries.js';
import { EmptyState } from '../../components/empty-state.js';
import { Loading } from '../../components/loading.js';
import { PageHeader } from '../../components/page-header.js';
import { canSomewhere, startNamespace, startSection } from '../../lib/permissions.js';
import { Link, navigate, paths } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';

/**
 * The namespace to work in: `preferred` as it is when the URL or a scoped token fixes it or the caller
 * has no roles; otherwise chosen from the readable namespaces and the roles. Undefined while the list
 * loads, null when there is none.
 */
export function useWorkingNamespace(preferred: string, pinned: boolean): string | null | undefined {
  const { access, needLogin } = useAuth();
  const limited = access?.source === 'roles';
  // Who may read no namespace gets no list (the server refuses it): its roles name where it may go.
  const listable = access !== undefined && canSomewhere(access, 'read');
  const namespaces = useNamespaces(limited && listable && !pinned && !needLogin);
  if (!access || !limited || pinned) return preferred;
  if (listable && namespaces.isPending && !namespaces.error) return undefined;
  const listed = (namespaces.data ?? []).map((n) => n.key);
  return startNamespace(access, listed, preferred) ?? null;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

export function StartPage({ namespace }: { namespace: string | null | undefined }) {
  const { access } = usePermissions();
  if (namespace === undefined) return <Loading label="Finding your namespaces…" />;
  if (namespace === null) {
    return (
      <>
        <PageHeader title="Welcome to Vexil" />
        <EmptyState title="No namespace to work in yet">
          <p>
            You are signed in, but you have no role on any namespace. An administrator can give you one, by a rule in
            the server's configuration or by a role binding.
          </p>
          <p>
            <Link to={paths.access()}>See your access</Link>
          </p>
        </EmptyState>
      </>
    );
  }
  const section = startSection(access, namespace);
  if (section === 'flags') return <Redirect to={paths.flags(namespace)} />;
  if (section === 'console') return <Redirect to={paths.console(namespace)} />;
  return (
    <>
      <PageHeader title={`Namespace ${namespace}`} />
      <EmptyState title={`Nothing to open in namespace "${namespace}"`}>
        <p>You have no role on this namespace that lets you read or evaluate its flags.</p>
        <p>
          <Link to={paths.access()}>See your access</Link>
        </p>
      </EmptyState>
    </>
  );
}
