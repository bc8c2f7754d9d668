// Sorting of the flag and segment lists, kept in the URL as `sort=<field>` or `sort=-<field>`
// (descending). The lists hold the namespace's whole collection in the browser (the API has no
// sort parameter), so sorting here orders every item, not just the visible page.

export type SortField = 'name' | 'key' | 'updated' | 'created';
export interface Sort {
  field: SortField;
  desc: boolean;
}

const FIELDS: SortField[] = ['name', 'key', 'updated', 'created'];

/** `-updated` → {updated, desc}; anything unknown → undefined (the server's order). */
export function parseSort(text: string | null): Sort | undefined {
  if (!text) return undefined;
  const desc = text.startsWith('-');
  const field = (desc ? text.slice(1) : text) as SortField;
  return FIELDS.includes(field) ? { field, desc } : undefined;
}

export function formatSort(sort: Sort | undefined): string | undefined {
  return sort ? `${sort.desc ? '-' : ''}${sort.field}` : undefined;
}

/** The next sort when a column header is pressed: dates start newest first, text A→Z. */
export function nextSort(current: Sort | undefined, field: SortField): Sort {
  if (current?.field === field) return { field, desc: !current.desc };
  return { field, desc: field === 'updated' || field === 'created' };
}

interface Sortable {
  key: string;
  name: string;
  createdAt?: string;
  updatedAt?: string;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function sortValue(item: Sortable, field: SortField): string {
  switch (field) {
    case 'name':
      return item.name || item.key;
    case 'key':
      return item.key;
    case 'updated':
      return item.updatedAt ?? '';
    case 'created':
      return item.createdAt ?? '';
  }
}

/** A sorted copy; ties keep the server's order (Array.prototype.sort is stable). */
export function sortItems<T extends Sortable>(items: T[], sort: Sort | undefined): T[] {
  if (!sort) return items;
  const dates = sort.field === 'updated' || sort.field === 'created';
  const sign = sort.desc ? -1 : 1;
  return [...items].sort((a, b) => {
    const x = sortValue(a, sort.field);
    const y = sortValue(b, sort.field);
    // RFC 3339 timestamps in UTC compare as text; names compare as people read them.
    const c = dates ? (x < y ? -1 : x > y ? 1 : 0) : collator.compare(x, y);
    return c * sign;
  });
}
