// A small History-API router: the dashboard's pages are a handful of path patterns, so a dependency
// would buy nothing. Links are real <a href> elements (open in new tab, copy link and keyboard work).

import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
function notify(): void {
  lastHref = snapshot();
  for (const l of listeners) l();
}

// Forms with edits not yet saved: leaving the page asks first instead of dropping them silently.
const unsaved = new Set<symbol>();
const LEAVE_QUESTION = 'You have changes that are not saved. Leave this page and lose them?';

/** True when nothing is unsaved, or the operator agreed to lose it. */
function mayLeave(): boolean {
  if (unsaved.size === 0) return true;
  if (!window.confirm(LEAVE_QUESTION)) return false;
  unsaved.clear();
  return true;
}

let lastHref = typeof window === 'undefined' ? '/' : window.location.pathname + window.location.search;
if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    // Back/forward has already moved the URL; staying means putting the page's URL back.
    if (!mayLeave()) {
      window.history.pushState(null, '', lastHref);
      return;
    }
    notify();
  });
  window.addEventListener('beforeunload', (e) => {
    if (unsaved.size > 0) e.preventDefault();
  });
}

/** While `dirty`, navigating away (links, back, reload, closing the tab) asks for confirmation. */
export function useUnsavedChanges(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const token = Symbol('unsaved');
    unsaved.add(token);
    return () => {
      unsaved.delete(token);
    };
  }, [dirty]);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const snapshot = () => window.location.pathname + window.location.search;

export interface Location {
  pathname: string;
  search: URLSearchParams;
}

/** The current path and query; re-renders on navigation. */
export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot, () => '/');
  const url = new URL(href, 'http://local');
  return { pathname: url.pathname, search: url.searchParams };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  // Only a move to another page can lose edits; a changed query (filters, page) keeps the form.
  if (new URL(to, window.location.href).pathname !== window.location.pathname && !mayLeave()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
  if (!options.replace) window.scrollTo?.(0, 0);
}

/** Replaces the query string (filters, page numbers) without adding history entries. */
export function setSearchParams(params: Record<string, string | undefined>): void {
  const url = new URL(window.location.href);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  navigate(url.pathname + url.search, { replace: true });
}

/** Matches `/namespaces/:ns/flags/:key` against a path; returns the decoded params or null. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i] as string;
    const seg = s[i] as string;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(seg);
      } catch {
        return null;
      }
    } else if (part !== seg) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}

export const paths = {
  flags: (ns: string) => `/namespaces/${encodeURIComponent(ns)}/flags`,
  newFlag: (ns: string) => `/namespaces/${encodeURIComponent(ns)}/flags/new`,
  flag: (ns: string, key: string, tab?: 'rules' | 'rollouts' | 'history') =>
    `/namespaces/${encodeURIComponent(ns)}/flags/${encodeURIComponent(key)}${tab ? `/${tab}` : ''}`,
  segments: (ns: string) => `/namespaces/${encodeURIComponent(ns)}/segments`,
  newSegment: (ns: string) => `/namespaces/${encodeURIComponent(ns)}/segments/new`,
  segment: (ns: string, key: string, tab?: 'history') =>
    `/namespaces/${encodeURIComponent(ns)}/segments/${encodeURIComponent(key)}${tab ? `/${tab}` : ''}`,
  activity: (ns: string, filter: { type?: string; key?: string } = {}) => {
    const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as [string, string][]).toString();
    return `/namespaces/${encodeURIComponent(ns)}/activity${query ? `?${query}` : ''}`;
  },
  console: (ns: string, flagKey?: string) =>
    `/namespaces/${encodeURIComponent(ns)}/console${flagKey ? `?flag=${encodeURIComponent(flagKey)}` : ''}`,
  namespaces: () => '/settings/namespaces',
  tokens: () => '/settings/tokens',
  roleBindings: () => '/settings/roles',
  access: () => '/settings/access',
};
