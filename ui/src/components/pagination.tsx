// Page controls for client-side lists: "1–25 of 5,000", previous/next and page size.

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
  return (
    <nav className="pagination" aria-label={label}>
      <span className="pagination-range">
        {from.toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()}
      </span>
      <button type="button" className="btn btn-small" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span className="pagination-page">
        Page {page.toLocaleString()} of {pages.toLocaleString()}
      </span>
      <button type="button" className="btn btn-small" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        Next
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
