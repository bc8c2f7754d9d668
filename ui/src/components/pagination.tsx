// Page controls for client-side lists: "1–25 of 5,000", first/previous/next/last and page size.
// Changing the page starts reading the new page at its top, where the list begins.

interface PaginationProps {
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  onPageSize?: (size: number) => void;
  label: string;
}

export function Pagination({ page, pageSize, total, onPage, onPageSize, label }: PaginationProps) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const from = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  const go = (p: number) => {
    onPage(p);
    // The buttons sit below the list: without this, a long page leaves you at the bottom of the next.
    window.scrollTo?.(0, 0);
  };
  return (
    <nav className="pagination" aria-label={label}>
      <span className="pagination-range">
        {from.toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()}
      </span>
      <button type="button" className="btn btn-small" onClick={() => go(1)} disabled={page <= 1}>
        First
      </button>
      <button type="button" className="btn btn-small" onClick={() => go(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span className="pagination-page">
        Page {page.toLocaleString()} of {pages.toLocaleString()}
      </span>
      <button type="button" className="btn btn-small" onClick={() => go(page + 1)} disabled={page >= pages}>
        Next
      </button>
      <button type="button" className="btn btn-small" onClick={() => go(pages)} disabled={page >= pages}>
        Last
      </button>
      {onPageSize ? (
        <label className="pagination-size">
          Per page
          <select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
            {[25, 50, 100].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </nav>
  );
}
