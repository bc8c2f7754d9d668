// The page for the current URL, inside the app frame; the login prompt instead when a token is needed.

import { type ReactNode, useEffect, useRef } from 'react';
import { EmptyState } from './components/empty-state.js';
import { Loading } from './components/loading.js';
import { NotAllowedPage } from './components/not-allowed.js';
import { MyAccessPage } from './features/access/my-access-page.js';
import { useAuth } from './features/auth/auth-context.js';
import { LoginDialog, LoginScreen } from './features/auth/login-screen.js';
import { usePermissions } from './features/auth/use-permissions.js';
import { ConsolePage } from './features/console/console-page.js';
import { FlagPage } from './features/flags/flag-page.js';
import { FlagsPage } from './features/flags/flags-page.js';
import { NewFlagPage } from './features/flags/new-flag-page.js';
import { ActivityPage } from './features/history/activity-page.js';
import { AppShell } from './features/layout/app-shell.js';
import { lastNamespace, namespaceFromPath } from './features/layout/current-namespace.js';
import { StartPage, useWorkingNamespace } from './features/layout/start-page.js';
import { NamespacesPage } from './features/namespaces/namespaces-page.js';
import { RoleBindingsPage } from './features/role-bindings/role-bindings-page.js';
import { NewSegmentPage } from './features/segments/new-segment-page.js';
import { SegmentPage } from './features/segments/segment-page.js';
import { SegmentsPage } from './features/segments/segments-page.js';
import { TokensPage } from './features/tokens/tokens-page.js';
import { focusPageHeading } from './lib/focus.js';
import type { Action } from './lib/permissions.js';
import { Link, matchPath, navigate, paths, useLocation } from './lib/router.js';

type Params = Record<string, string>;
/**
 * What a page needs (issue 41): an action in the URL's namespace, or (`across`) somewhere; without it
 * the page says what is missing instead of showing the server's refusals.
 */
type Need = { action: Action; across?: true };
const read: Need = { action: 'read' };
const edit: Need = { action: 'edit' };
const flagPage = (tab: 'details' | 'rules' | 'rollouts' | 'history') => (p: Params) => (
  <FlagPage key={p.key} ns={p.ns as string} flagKey={p.key as string} tab={tab} />
);
const routes: [string, (p: Params) => ReactNode, string, Need?][] = [
  ['/namespaces/:ns/flags', (p) => <FlagsPage ns={p.ns as string} />, 'Flags', read],
  ['/namespaces/:ns/flags/new', (p) => <NewFlagPage ns={p.ns as string} />, 'New flag', edit],
  ['/namespaces/:ns/flags/:key', flagPage('details'), 'Flag', read],
  ['/namespaces/:ns/flags/:key/rules', flagPage('rules'), 'Rules', read],
  ['/namespaces/:ns/flags/:key/rollouts', flagPage('rollouts'), 'Rollouts', read],
  ['/namespaces/:ns/flags/:key/history', flagPage('history'), 'Flag history', read],
  ['/namespaces/:ns/segments', (p) => <SegmentsPage ns={p.ns as string} />, 'Segments', read],
  ['/namespaces/:ns/segments/new', (p) => <NewSegmentPage ns={p.ns as string} />, 'New segment', edit],
  [
    '/namespaces/:ns/segments/:key',
    (p) => <SegmentPage key={p.key} ns={p.ns as string} segmentKey={p.key as string} />,
    'Segment',
    read,
  ],
  [
    '/namespaces/:ns/segments/:key/history',
    (p) => <SegmentPage key={p.key} ns={p.ns as string} segmentKey={p.key as string} tab="history" />,
    'Segment history',
    read,
  ],
  ['/namespaces/:ns/activity', (p) => <ActivityPage key={p.ns} ns={p.ns as string} />, 'Activity', read],
  ['/namespaces/:ns/console', (p) => <ConsolePage key={p.ns} ns={p.ns as string} />, 'Console', { action: 'evaluate' }],
  ['/settings/namespaces', () => <NamespacesPage />, 'Namespaces'],
  ['/settings/tokens', () => <TokensPage />, 'API tokens', { action: 'tokens', across: true }],
  ['/settings/roles', () => <RoleBindingsPage />, 'Role bindings', { action: 'role-bindings', across: true }],
  ['/settings/access', () => <MyAccessPage />, 'My access'],
];

function resolve(pathname: string): { node: ReactNode; title: string; need?: Need; ns?: string } | null {
  for (const [pattern, render, title, need] of routes) {
    const params = matchPath(pattern, pathname);
    if (params)
      return { node: render(params), title, ...(need ? { need } : {}), ...(params.ns ? { ns: params.ns } : {}) };
  }
  return null;
}

/** The page, or what it needs when the caller lacks it. */
function Guarded({ match }: { match: NonNullable<ReturnType<typeof resolve>> }) {
  const permissions = usePermissions();
  const need = match.need;
  const why = !need
    ? undefined
    : need.across || match.ns === undefined
      ? permissions.reasonEverywhere(need.action)
      : permissions.reason(need.action, match.ns);
  if (!why) return <>{match.node}</>;
  return (
    <NotAllowedPage title={match.title} reason={why}>
      <p>
        <Link to={paths.access()}>See what you may do</Link>
      </p>
    </NotAllowedPage>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

export function App() {
  const { pathname } = useLocation();
  const auth = useAuth();
  const fromPath = namespaceFromPath(pathname);
  // A namespace-scoped token works in its namespace only; otherwise the URL's, else the last one
  // that was seen to exist (AppShell remembers it once the namespace list confirms it).
  const preferred = auth.scope ?? fromPath ?? lastNamespace();
  // With roles, the remembered namespace (or `default`) may be one the caller cannot use: the first
  // it may use instead, once the namespace list has said which (start-page.tsx).
  const working = useWorkingNamespace(preferred, Boolean(auth.scope ?? fromPath));
  const ns = working ?? preferred;

  const shownPath = useRef(pathname);
  useEffect(() => {
    if (pathname === shownPath.current) return;
    shownPath.current = pathname;
    focusPageHeading();
  }, [pathname]);

  const match = resolve(pathname);
  const title = match?.title;
  useEffect(() => {
    document.title = title ? `${title} · Vexil` : 'Vexil';
  }, [title]);

  if (auth.required === undefined || (auth.access === undefined && !auth.needLogin)) {
    return <Loading label="Connecting to Vexil…" />;
  }
  // Never signed in (or signed out): the sign-in page. A token rejected mid-session: a sign-in
  // dialog over the page (below), which keeps whatever the operator was doing.
  if (auth.needLogin && !auth.reason) return <LoginScreen />;

  const start = pathname === '/' || pathname === '' || /^\/namespaces\/[^/]+\/?$/.test(pathname);
  if (start && auth.access?.source !== 'roles') return <Redirect to={paths.flags(ns)} />;
  if (auth.scope && (fromPath ? fromPath !== auth.scope : pathname.startsWith('/settings/')))
    return <Redirect to={paths.flags(auth.scope)} />;

  return (
    <>
      <AppShell namespace={ns}>
        {start ? (
          <StartPage namespace={working} />
        ) : match ? (
          <Guarded match={match} />
        ) : (
          <EmptyState title="Page not found">
            <p>
              Nothing lives at <code>{pathname}</code>. <Link to={paths.flags(ns)}>Go to the flags</Link>.
            </p>
          </EmptyState>
        )}
      </AppShell>
      {auth.needLogin ? <LoginDialog /> : null}
    </>
  );
}
