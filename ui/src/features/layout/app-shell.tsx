// The frame of every page: skip link, sidebar (brand, namespace switcher, navigation) and the main area.
// On narrow screens the sidebar becomes a top bar (styles.css).

import { type ReactNode, useEffect, useState } from 'react';
import { useServerReachable } from '../../api/connection.js';
import { useNamespaces } from '../../api/queries.js';
import { roleOn } from '../../lib/permissions.js';
import { Link, paths, useLocation } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';
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
  const permissions = usePermissions();
  const { access } = permissions;
  const namespaces = useNamespaces(permissions.canSomewhere('read'));
  const inUrl = pathname.startsWith('/namespaces/');
  const exists = namespaces.data?.some((n) => n.key === namespace);
  // With roles the list holds only the readable namespaces: one the caller may only evaluate in is
  // not listed, and one it has no role on is none of its business (the page says what is missing).
  const role = access.source === 'roles' ? roleOn(access, namespace) : 'admin';
  useEffect(() => {
    if (!inUrl || exists === undefined) return;
    if (exists || role === 'client') rememberNamespace(namespace);
    else forgetNamespace(namespace);
  }, [inUrl, exists, namespace, role]);
  if (!inUrl || exists !== false || role === undefined || role === 'client') return null;
  return (
    <p className="warning" role="alert">
      There is no namespace "{namespace}"{access.source === 'roles' ? ' you may read' : ''}. Pick one in the namespace
      menu
      {permissions.can('create-namespace', namespace) ? (
        <>
          , or <Link to={paths.namespaces()}>create it</Link>
        </>
      ) : null}
      .
    </p>
  );
}

/** Said while the server cannot be reached; the page's controls are off meanwhile. */
function ConnectionBanner({ reachable }: { reachable: boolean }) {
  return (
    <div role="status" aria-live="polite">
      {reachable ? null : (
        <p className="warning connection-lost">
          <strong>Offline: the server cannot be reached.</strong> Reconnecting… Changes cannot be saved until it is
          back.
        </p>
      )}
    </div>
  );
}

export function AppShell({ namespace, children }: { namespace: string; children: ReactNode }) {
  const { required, hasToken, logout, scope, person } = useAuth();
  const permissions = usePermissions();
  const may = (action: 'read' | 'evaluate') => permissions.can(action, namespace);
  const reachable = useServerReachable();
  // At phone width the navigation folds behind a Menu button (styles.css), and folds again on a move.
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page is the trigger
  useEffect(() => setMenuOpen(false), [pathname]);
  const section = (name: string) => (p: string) => new RegExp(`^/namespaces/[^/]+/${name}(/|$)`).test(p);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className={menuOpen ? 'sidebar sidebar-open' : 'sidebar'}>
        <div className="sidebar-top">
          <Link to={paths.flags(namespace)} className="brand">
            Vexil
          </Link>
          <button
            type="button"
            className="btn btn-small menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="sidebar-body"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
        </div>
        <div className="sidebar-body" id="sidebar-body">
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
            {/* Only what the caller may open here (issue 41); My access says why the rest is missing. */}
            {may('read') ? (
              <>
                <NavLink to={paths.flags(namespace)} match={section('flags')}>
                  Flags
                </NavLink>
                <NavLink to={paths.segments(namespace)} match={section('segments')}>
                  Segments
                </NavLink>
              </>
            ) : null}
            {may('evaluate') ? (
              <NavLink to={paths.console(namespace)} match={section('console')}>
                Console
              </NavLink>
            ) : null}
            {may('read') ? (
              <NavLink to={paths.activity(namespace)} match={section('activity')}>
                Activity
              </NavLink>
            ) : null}
            {scope || !permissions.canSomewhere('read') ? null : (
              <NavLink to={paths.namespaces()} match={(p) => p.startsWith('/settings/namespaces')}>
                Namespaces
              </NavLink>
            )}
            {required && !scope && permissions.canSomewhere('tokens') ? (
              <NavLink to={paths.tokens()} match={(p) => p.startsWith('/settings/tokens')}>
                API tokens
              </NavLink>
            ) : null}
            {required && !scope && permissions.canSomewhere('role-bindings') ? (
              <NavLink to={paths.roleBindings()} match={(p) => p.startsWith('/settings/roles')}>
                Role bindings
              </NavLink>
            ) : null}
            {required ? (
              <NavLink to={paths.access()} match={(p) => p.startsWith('/settings/access')}>
                My access
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
        </div>
      </aside>
      <main className="main" id="main" tabIndex={-1}>
        <ConnectionBanner reachable={reachable} />
        {scope ? null : <UnknownNamespace namespace={namespace} />}
        {/* While the server is lost, every control of the page is disabled: nothing would be saved. */}
        <fieldset className="page-fieldset" disabled={!reachable}>
          {children}
        </fieldset>
      </main>
      <CommandPalette ns={namespace} />
    </div>
  );
}
