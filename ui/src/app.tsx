// The page for the current URL, inside the app frame; the login prompt instead when a token is needed.

import { type ReactNode, useEffect, useRef } from 'react';
import { EmptyState } from './components/empty-state.js';
import { Loading } from './components/loading.js';
import { useAuth } from './features/auth/auth-context.js';
import { LoginDialog, LoginScreen } from './features/auth/login-screen.js';
import { ConsolePage } from './features/console/console-page.js';
import { FlagPage } from './features/flags/flag-page.js';
import { FlagsPage } from './features/flags/flags-page.js';
import { NewFlagPage } from './features/flags/new-flag-page.js';
import { ActivityPage } from './features/history/activity-page.js';
import { AppShell } from './features/layout/app-shell.js';
import { lastNamespace, namespaceFromPath } from './features/layout/current-namespace.js';
import { NamespacesPage } from './features/namespaces/namespaces-page.js';
import { NewSegmentPage } from './features/segments/new-segment-page.js';
import { SegmentPage } from './features/segments/segment-page.js';
import { SegmentsPage } from './features/segments/segments-page.js';
import { TokensPage } from './features/tokens/tokens-page.js';
import { focusPageHeading } from './lib/focus.js';
import { Link, matchPath, navigate, paths, useLocation } from './lib/router.js';

type Params = Record<string, string>;
const routes: [string, (p: Params) => ReactNode, string][] = [
  ['/namespaces/:ns/flags', (p) => <FlagsPage ns={p.ns as string} />, 'Flags'],
  ['/namespaces/:ns/flags/new', (p) => <NewFlagPage ns={p.ns as string} />, 'New flag'],
  [
    '/namespaces/:ns/flags/:key',
    (p) => <FlagPage key={p.key} ns={p.ns as string} flagKey={p.key as string} tab="details" />,
    'Flag',
  ],
  [
    '/namespaces/:ns/flags/:key/rules',
    (p) => <FlagPage key={p.key} ns={p.ns as string} flagKey={p.key as string} tab="rules" />,
    'Rules',
  ],
  [
    '/namespaces/:ns/flags/:key/rollouts',
    (p) => <FlagPage key={p.key} ns={p.ns as string} flagKey={p.key as string} tab="rollouts" />,
    'Rollouts',
  ],
  [
    '/namespaces/:ns/flags/:key/history',
    (p) => <FlagPage key={p.key} ns={p.ns as string} flagKey={p.key as string} tab="history" />,
    'Flag history',
  ],
  ['/namespaces/:ns/segments', (p) => <SegmentsPage ns={p.ns as string} />, 'Segments'],
  ['/namespaces/:ns/segments/new', (p) => <NewSegmentPage ns={p.ns as string} />, 'New segment'],
  [
    '/namespaces/:ns/segments/:key',
    (p) => <SegmentPage key={p.key} ns={p.ns as string} segmentKey={p.key as string} />,
    'Segment',
  ],
  [
    '/namespaces/:ns/segments/:key/history',
    (p) => <SegmentPage key={p.key} ns={p.ns as string} segmentKey={p.key as string} tab="history" />,
    'Segment history',
  ],
  ['/namespaces/:ns/activity', (p) => <ActivityPage key={p.ns} ns={p.ns as string} />, 'Activity'],
  ['/namespaces/:ns/console', (p) => <ConsolePage key={p.ns} ns={p.ns as string} />, 'Console'],
  ['/settings/namespaces', () => <NamespacesPage />, 'Namespaces'],
  ['/settings/tokens', () => <TokensPage />, 'API tokens'],
];

function resolve(pathname: string): { node: ReactNode; title: string } | null {
  for (const [pattern, render, title] of routes) {
    const params = matchPath(pattern, pathname);
    if (params) return { node: render(params), title };
  }
  return null;
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
  const ns = auth.scope ?? fromPath ?? lastNamespace();

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

  if (auth.required === undefined) return <Loading label="Connecting to Vexil…" />;
  // Never signed in (or signed out): the sign-in page. A token rejected mid-session: a sign-in
  // dialog over the page (below), which keeps whatever the operator was doing.
  if (auth.needLogin && !auth.reason) return <LoginScreen />;

  if (pathname === '/' || pathname === '') return <Redirect to={paths.flags(ns)} />;
  if (/^\/namespaces\/[^/]+\/?$/.test(pathname)) return <Redirect to={paths.flags(ns)} />;
  if (auth.scope && (fromPath ? fromPath !== auth.scope : pathname.startsWith('/settings/')))
    return <Redirect to={paths.flags(auth.scope)} />;

  return (
    <>
      <AppShell namespace={ns}>
        {match ? (
          match.node
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
