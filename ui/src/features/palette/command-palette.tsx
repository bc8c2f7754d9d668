// Ctrl+K / Cmd+K (or the sidebar's Search button): one box over the pages, the current namespace's
// flags and segments, and the namespaces. A native <dialog> (focus stays inside, Escape closes) with
// a combobox and its listbox, driven by the arrow keys and Enter.

import { type KeyboardEvent, useEffect, useId, useMemo, useState } from 'react';
import { useFlags, useNamespaces, useSegments } from '../../api/queries.js';
import { useModalDialog } from '../../components/use-modal-dialog.js';
import { navigate, paths } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';
import { filterPalette, type PaletteItem } from './palette-items.js';

function usePaletteItems(ns: string, open: boolean): PaletteItem[] {
  const { required, scope } = useAuth();
  const permissions = usePermissions();
  // Only the pages the caller may use (issue 41).
  const mayRead = permissions.can('read', ns);
  const mayEdit = permissions.can('edit', ns);
  const mayEvaluate = permissions.can('evaluate', ns);
  const mayTokens = required && !scope && permissions.canSomewhere('tokens');
  const mayBindings = required && !scope && permissions.canSomewhere('role-bindings');
  // Read only while open; a namespace-scoped token may not list namespaces at all.
  const flags = useFlags(ns, open && mayRead);
  const segments = useSegments(ns, open && mayRead);
  const namespaces = useNamespaces(open && !scope && permissions.canSomewhere('read'));
  return useMemo(() => {
    if (!open) return [];
    const page = (id: string, label: string, to: string, allowed: boolean): PaletteItem[] =>
      allowed ? [{ id, kind: 'Page', label, to }] : [];
    const pages: PaletteItem[] = [
      ...page('p-flags', 'Flags', paths.flags(ns), mayRead),
      ...page('p-new-flag', 'New flag', paths.newFlag(ns), mayEdit),
      ...page('p-segments', 'Segments', paths.segments(ns), mayRead),
      ...page('p-new-segment', 'New segment', paths.newSegment(ns), mayEdit),
      ...page('p-console', 'Console', paths.console(ns), mayEvaluate),
      ...page('p-ns', 'Namespaces', paths.namespaces(), !scope),
      ...page('p-tokens', 'API tokens', paths.tokens(), Boolean(mayTokens)),
      ...page('p-roles', 'Role bindings', paths.roleBindings(), Boolean(mayBindings)),
      ...page('p-access', 'My access', paths.access(), Boolean(required)),
    ];
    return [
      ...pages,
      ...(flags.data ?? []).map((f) => ({
        id: `f-${f.key}`,
        kind: 'Flag' as const,
        label: f.name || f.key,
        detail: f.key,
        to: paths.flag(ns, f.key),
      })),
      ...(segments.data ?? []).map((s) => ({
        id: `s-${s.key}`,
        kind: 'Segment' as const,
        label: s.name || s.key,
        detail: s.key,
        to: paths.segment(ns, s.key),
      })),
      ...(scope ? [] : (namespaces.data ?? [])).map((n) => ({
        id: `n-${n.key}`,
        kind: 'Namespace' as const,
        label: n.name || n.key,
        detail: n.key,
        to: paths.flags(n.key),
      })),
    ];
  }, [
    open,
    ns,
    flags.data,
    segments.data,
    namespaces.data,
    required,
    scope,
    mayRead,
    mayEdit,
    mayEvaluate,
    mayTokens,
    mayBindings,
  ]);
}

export function CommandPalette({ ns }: { ns: string }) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const { ref: dialog, onDialogClose } = useModalDialog(open, () => setOpen(false));
  const listId = useId();
  const items = usePaletteItems(ns, open);
  const shown = useMemo(() => filterPalette(items, query), [items, query]);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    const onOpen = () => setOpen(true);
    window.addEventListener('vexil:open-palette', onOpen);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('vexil:open-palette', onOpen);
    };
  }, []);

  // Each opening starts with an empty query.
  useEffect(() => {
    if (open) {
      setQuery('');
      setActive(0);
    }
  }, [open]);

  const go = (item: PaletteItem | undefined) => {
    if (!item) return;
    setOpen(false);
    navigate(item.to);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((a) => Math.min(a + 1, shown.length - 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      go(shown[active]);
    }
  };

  const activeItem = shown[Math.min(active, shown.length - 1)];
  return (
    <dialog ref={dialog} className="dialog palette" aria-label="Jump to" onClose={onDialogClose}>
      {open ? (
        <>
          <input
            role="combobox"
            aria-expanded="true"
            aria-controls={listId}
            aria-activedescendant={activeItem ? `${listId}-${activeItem.id}` : undefined}
            aria-label="Find flags, segments, namespaces and pages"
            placeholder="Find flags, segments, namespaces and pages"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
            autoComplete="off"
          />
          <div id={listId} role="listbox" aria-label="Results" className="palette-list">
            {shown.map((item) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard path is the combobox's arrow keys and Enter
              <div
                key={item.id}
                id={`${listId}-${item.id}`}
                role="option"
                tabIndex={-1}
                aria-selected={item === activeItem}
                onClick={() => go(item)}
              >
                <span>
                  {item.label}
                  {item.detail && item.detail !== item.label ? <code className="key"> {item.detail}</code> : null}
                </span>
                <span className="palette-kind">{item.kind}</span>
              </div>
            ))}
          </div>
          {shown.length === 0 ? <p className="muted palette-empty">Nothing matches "{query}".</p> : null}
        </>
      ) : null}
    </dialog>
  );
}

/** The visible way in, for those who do not know the shortcut. */
export function PaletteButton() {
  return (
    <button
      type="button"
      className="btn btn-small palette-button"
      onClick={() => window.dispatchEvent(new Event('vexil:open-palette'))}
      aria-keyshortcuts="Control+K Meta+K"
    >
      Search… <kbd>Ctrl K</kbd>
    </button>
  );
}
