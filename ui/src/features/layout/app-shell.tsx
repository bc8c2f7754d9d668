// The frame of every page: skip link, sidebar (brand, namespace switcher, navigation) and the main area.
// On narrow screens the sidebar becomes a top bar (styles.css).

import { type ReactNode, useEffect } from 'react';
import { useNamespaces } from '../../api/queries.js';
import { Link, paths, useLocation } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { CommandPalette, PaletteButton } from '../palette/command-palette.js';
import { PreferencesMenu } from '../preferences/preferences-menu.js';
import { forgetNamespace, rememberNamespace } from './current-namespace.js';
import { NamespaceSwitcher } from './namespace-switcher.js';

function NavLink({ to, children, match }: { to: string; children: ReactNode; match: (p: string) => boolean }) {
  const { pathname } = useLocation();
  const current = match(pathname);
  return (
    <Link to={to} className={current ? 'nav-link nav-current' : 'nav-link'} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/**
 * Said once, above the page, when the URL names a namespace that does not exist. A namespace the
 * list confirms becomes the one `/` returns to; an unknown one never does.
 */
function UnknownNamespace({ namespace }: { namespace: string }) {
  const { pathname } = useLocation();
  const namespaces = useNamespaces();
  const inUrl = pathname.startsWith('/namespaces/');
  const exists = namespaces.data?.some((n) => n.key === namespace);
  useEffect(() => {
    if (!inUrl || exists === undefined) return;
    if (exists) rememberNamespace(namespace);
    else forgetNamespace(namespace);
  }, [inUrl, exists, namespace]);
  if (!inUrl || exists !== false) return null;
  return (
    <p className="warning" role="alert">
      There is no namespace "{namespace}". Pick one in the namespace menu, or{' '}
      <Link to={paths.namespaces()}>create it</Link>.
    </p>
  );
}

export function AppShell({ namespace, children }: { namespace: string; children: ReactNode }) {
  const { required, hasToken, logout, scope, person } = useAuth();
  const section = (name: string) => (p: string) => new RegExp(`^/namespaces/[^/]+/${name}(/|$)`).test(p);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <Link to={paths.flags(namespace)} className="brand">
          Vexil
        </Link>
        {scope ? (
          <p className="ns-scoped">
            Namespace <strong>{scope}</strong>
            <span className="muted"> (your token is limited to it)</span>
          </p>
        ) : (
          <NamespaceSwitcher current={namespace} />
        )}
        <PaletteButton />
        <nav aria-label="Main" className="nav">
          <NavLink to={paths.flags(namespace)} match={section('flags')}>
            Flags
          </NavLink>
          <NavLink to={paths.segments(namespace)} match={section('segments')}>
            Segments
          </NavLink>
          <NavLink to={paths.console(namespace)} match={section('console')}>
            Console
          </NavLink>
          <NavLink to={paths.activity(namespace)} match={section('activity')}>
            Activity
          </NavLink>
          {scope ? null : (
            <NavLink to={paths.namespaces()} match={(p) => p.startsWith('/settings/namespaces')}>
              Namespaces
            </NavLink>
          )}
          {required && !scope ? (
            <NavLink to={paths.tokens()} match={(p) => p.startsWith('/settings/tokens')}>
              API tokens
            </NavLink>
          ) : null}
        </nav>
        <PreferencesMenu />
        {person ? (
          <p className="person">
            {person.picture ? <img src={person.picture} alt="" width={24} height={24} /> : null}
            <span>{person.name ?? person.email ?? 'Signed in'}</span>
          </p>
        ) : null}
        {hasToken || person ? (
          <button type="button" className="btn btn-small btn-ghost sign-out" onClick={logout}>
            Sign out
          </button>
        ) : null}
      </aside>
      <main className="main" id="main" tabIndex={-1}>
        {scope ? null : <UnknownNamespace namespace={namespace} />}
        {children}
      </main>
      <CommandPalette ns={namespace} />
    </div>
  );
}
