// What the command palette can jump to, and how typing narrows it: every word typed must appear in
// the item's label, key or kind.

export interface PaletteItem {
  id: string;
  kind: 'Page' | 'Flag' | 'Segment' | 'Namespace';
  label: string;
  detail?: string;
  to: string;
}

export function filterPalette(items: PaletteItem[], query: string, limit = 50): PaletteItem[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items.slice(0, limit);
  const out: PaletteItem[] = [];
  for (const item of items) {
    const hay = `${item.label}\n${item.detail ?? ''}\n${item.kind}`.toLowerCase();
    if (words.every((w) => hay.includes(w))) out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}
