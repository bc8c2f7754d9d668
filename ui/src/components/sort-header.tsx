// A column header that sorts its table: a button inside the <th>, which carries aria-sort while
// the table is sorted by it.

import type { ReactNode } from 'react';
import { nextSort, type Sort, type SortField } from '../lib/list-sort.js';

interface SortButtonProps {
  field: SortField;
  sort: Sort | undefined;
  onSort: (sort: Sort) => void;
  children: ReactNode;
}

export function SortButton({ field, sort, onSort, children }: SortButtonProps) {
  const active = sort?.field === field;
  const arrow = active ? (sort.desc ? '↓' : '↑') : '';
  return (
    <button
      type="button"
      className={`sort-button${active ? ' sort-active' : ''}`}
      onClick={() => onSort(nextSort(sort, field))}
    >
      {children}
      <span aria-hidden="true" className="sort-arrow">
        {arrow}
      </span>
      {active ? <span className="sr-only">{sort.desc ? ' (sorted descending)' : ' (sorted ascending)'}</span> : null}
    </button>
  );
}

/** aria-sort for a <th> whose column sorts by any of `fields`. */
export function ariaSort(sort: Sort | undefined, ...fields: SortField[]): 'ascending' | 'descending' | undefined {
  return sort && fields.includes(sort.field) ? (sort.desc ? 'descending' : 'ascending') : undefined;
}
