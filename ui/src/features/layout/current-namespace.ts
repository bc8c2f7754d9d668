// The namespace the operator is working in: the one in the URL, else the last one used, else `default`.

const LAST_KEY = 'vexil.namespace';

export function namespaceFromPath(pathname: string): string | undefined {
  const m = /^\/namespaces\/([^/]+)/.exec(pathname);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1] as string);
  } catch {
    return undefined;
  }
}

export function lastNamespace(): string {
  try {
    return localStorage.getItem(LAST_KEY) || 'default';
  } catch {
    return 'default';
  }
}

/** Forgets a remembered namespace that turned out not to exist, so `/` stops returning to it. */
export function forgetNamespace(ns: string): void {
  try {
    if (localStorage.getItem(LAST_KEY) === ns) localStorage.removeItem(LAST_KEY);
  } catch {
    // nothing remembered
  }
}

/** Only for a namespace the server listed: a mistyped URL must not become the start page. */
export function rememberNamespace(ns: string): void {
  try {
    localStorage.setItem(LAST_KEY, ns);
  } catch {
    // not remembered; harmless
  }
}

/** The same section (flags, segments, console) in another namespace. */
export function switchNamespacePath(pathname: string, ns: string): string {
  const section = /^\/namespaces\/[^/]+\/(flags|segments|console)/.exec(pathname)?.[1] ?? 'flags';
  return `/namespaces/${encodeURIComponent(ns)}/${section}`;
}
