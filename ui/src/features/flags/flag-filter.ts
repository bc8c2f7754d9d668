// The flag list's search and filters, done in the browser over the namespace's whole flag list:
// one precomputed lowercase haystack per flag (key, name and description) keeps a keystroke over
// 5,000 flags well under a frame.

import type { Flag } from '../../api/types.js';

export type TypeFilter = '' | 'variant' | 'boolean';
export type EnabledFilter = '' | 'enabled' | 'disabled';

export interface FlagFilter {
  q: string;
  type: TypeFilter;
  enabled: EnabledFilter;
}

export interface IndexedFlag {
  flag: Flag;
  haystack: string;
}

export function indexFlags(flags: Flag[]): IndexedFlag[] {
  return flags.map((flag) => ({ flag, haystack: `${flag.key}\n${flag.name}\n${flag.description}`.toLowerCase() }));
}

export function filterFlags(index: IndexedFlag[], filter: FlagFilter): Flag[] {
  const q = filter.q.trim().toLowerCase();
  const type =
    filter.type === 'variant' ? 'VARIANT_FLAG_TYPE' : filter.type === 'boolean' ? 'BOOLEAN_FLAG_TYPE' : undefined;
  const enabled = filter.enabled === 'enabled' ? true : filter.enabled === 'disabled' ? false : undefined;
  const out: Flag[] = [];
  for (const { flag, haystack } of index) {
    if (type && flag.type !== type) continue;
    if (enabled !== undefined && flag.enabled !== enabled) continue;
    if (q && !haystack.includes(q)) continue;
    out.push(flag);
  }
  return out;
}
