// An ordered list that can be reordered by dragging (mouse, touchpad) or with Move up / Move down
// buttons (keyboard). The new order is shown at once and handed to onReorder to save.

import { type DragEvent, type ReactNode, useEffect, useState } from 'react';

interface ReorderListProps<T> {
  items: T[];
  idOf: (item: T) => string;
  /** How to name an item at a position ("rule 2"), for button labels and announcements. */
  labelOf: (item: T, position: number) => string;
  render: (item: T, position: number) => ReactNode;
  onReorder: (ids: string[]) => Promise<unknown>;
  label: string;
  /** Items not to drag (e.g. the one being edited). */
  locked?: boolean;
}

export function move<T>(list: T[], from: number, to: number): T[] {
  const out = [...list];
  const [item] = out.splice(from, 1);
  if (item !== undefined) out.splice(to, 0, item);
  return out;
}

export function ReorderList<T>({ items, idOf, labelOf, render, onReorder, label, locked }: ReorderListProps<T>) {
  const [order, setOrder] = useState(() => items.map(idOf));
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<{ id: string; after: boolean } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const signature = items.map(idOf).join('|');

  // The server's order wins whenever it changes (after a save or a refetch).
  // biome-ignore lint/correctness/useExhaustiveDependencies: signature stands for items' ids
  useEffect(() => setOrder(items.map(idOf)), [signature]);

  const byId = new Map(items.map((i) => [idOf(i), i]));
  const ordered = order.map((id) => byId.get(id)).filter((i): i is T => i !== undefined);

  const commit = (next: string[], moved: string, position: number) => {
    if (next.join('|') === order.join('|')) return;
    setOrder(next);
    const item = byId.get(moved);
    const from = order.indexOf(moved);
    setAnnouncement(`${item ? labelOf(item, from) : 'Item'} moved to position ${position + 1} of ${next.length}`);
    onReorder(next).catch(() => setOrder(items.map(idOf)));
  };

  const onDragStart = (e: DragEvent, id: string) => {
    setDragging(id);
    e.dataTransfer.effectAllowed = 'move';
    e.dataTransfer.setData('text/plain', id);
  };
  const onDragOver = (e: DragEvent<HTMLLIElement>, id: string) => {
    if (!dragging) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    const rect = e.currentTarget.getBoundingClientRect();
    const after = e.clientY > rect.top + rect.height / 2;
    if (over?.id !== id || over.after !== after) setOver({ id, after });
  };
  const onDrop = (e: DragEvent, id: string) => {
    e.preventDefault();
    const from = dragging ?? e.dataTransfer.getData('text/plain');
    setDragging(null);
    setOver(null);
    if (!from || from === id) return;
    const without = order.filter((x) => x !== from);
    let to = without.indexOf(id);
    if (over?.after) to += 1;
    const next = [...without.slice(0, to), from, ...without.slice(to)];
    commit(next, from, to);
  };

  return (
    <>
      <ol className="reorder-list" aria-label={label}>
        {ordered.map((item, index) => {
          const id = idOf(item);
          const classes = ['reorder-item'];
          if (dragging === id) classes.push('dragging');
          if (over?.id === id) classes.push(over.after ? 'drop-after' : 'drop-before');
          return (
            <li
              key={id}
              className={classes.join(' ')}
              draggable={!locked && ordered.length > 1}
              onDragStart={(e) => onDragStart(e, id)}
              onDragOver={(e) => onDragOver(e, id)}
              onDragLeave={() => setOver((o) => (o?.id === id ? null : o))}
              onDrop={(e) => onDrop(e, id)}
              onDragEnd={() => {
                setDragging(null);
                setOver(null);
              }}
              data-testid={`reorder-${id}`}
            >
              {ordered.length > 1 ? (
                <div className="reorder-controls">
                  <span className="drag-handle" aria-hidden="true" title="Drag to reorder">
                    ⋮⋮
                  </span>
                  {/* aria-disabled rather than disabled: a keyboard user who moves an item to the top
                      keeps focus on the button instead of losing it to the page. */}
                  <button
                    type="button"
                    className="btn btn-icon"
                    aria-disabled={locked || index === 0}
                    onClick={() => !locked && index > 0 && commit(move(order, index, index - 1), id, index - 1)}
                    aria-label={`Move ${labelOf(item, index)} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="btn btn-icon"
                    aria-disabled={locked || index === ordered.length - 1}
                    onClick={() =>
                      !locked && index < ordered.length - 1 && commit(move(order, index, index + 1), id, index + 1)
                    }
                    aria-label={`Move ${labelOf(item, index)} down`}
                  >
                    ↓
                  </button>
                </div>
              ) : null}
              <div className="reorder-body">{render(item, index)}</div>
            </li>
          );
        })}
      </ol>
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
    </>
  );
}
