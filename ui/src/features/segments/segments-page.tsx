// The segments of a namespace, searchable by key, name or description and sortable; the view lives
// in the URL.

import { useDeferredValue, useMemo } from 'react';
import { useSegments } from '../../api/queries.js';
import { DateTime } from '../../components/date-time.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { TextField } from '../../components/field.js';
import { Loading } from '../../components/loading.js';
import { NotAllowedNote } from '../../components/not-allowed.js';
import { PageHeader } from '../../components/page-header.js';
import { Pagination } from '../../components/pagination.js';
import { ariaSort, SortButton } from '../../components/sort-header.js';
import { plural } from '../../lib/format.js';
import { formatSort, parseSort, type Sort, sortItems } from '../../lib/list-sort.js';
import { Link, paths, setSearchParams, useLocation } from '../../lib/router.js';
import { usePermissions } from '../auth/use-permissions.js';

const PAGE_SIZE = 50;

export function SegmentsPage({ ns }: { ns: string }) {
  const editWhy = usePermissions().reason('edit', ns);
  const segments = useSegments(ns);
  const { search } = useLocation();
  const q = search.get('q') ?? '';
  const sortParam = search.get('sort');
  const sort = useMemo(() => parseSort(sortParam), [sortParam]);
  const deferredQ = useDeferredValue(q);
  const filtered = useMemo(() => {
    const needle = deferredQ.trim().toLowerCase();
    const all = segments.data ?? [];
    const matching = needle
      ? all.filter((s) => `${s.key}\n${s.name}\n${s.description}`.toLowerCase().includes(needle))
      : all;
    return sortItems(matching, sort);
  }, [segments.data, deferredQ, sort]);
  const onSort = (next: Sort) => setSearchParams({ sort: formatSort(next), page: undefined });
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, Number(search.get('page')) || 1), pages);
  const shown = filtered.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);

  return (
    <>
      <PageHeader
        title="Segments"
        actions={
          editWhy ? null : (
            <Link to={paths.newSegment(ns)} className="btn btn-primary">
              New segment
            </Link>
          )
        }
      />
      <NotAllowedNote reason={editWhy} />
      <p className="lead">
        Segments describe groups of entities (users, accounts, devices) with constraints on their context.
      </p>
      <search className="filters" aria-label="Filter segments">
        <TextField
          label="Search"
          type="search"
          value={q}
          placeholder="Key, name or description"
          onChange={(v) => setSearchParams({ q: v, page: undefined })}
        />
      </search>
      {segments.isPending ? <Loading label="Loading segments…" /> : null}
      <ErrorNote error={segments.error} />
      {segments.data && segments.data.length === 0 ? (
        <EmptyState title="No segments in this namespace yet">
          {editWhy ? null : (
            <Link to={paths.newSegment(ns)} className="btn btn-primary">
              Create the first segment
            </Link>
          )}
        </EmptyState>
      ) : null}
      {segments.data && segments.data.length > 0 && filtered.length === 0 ? (
        <EmptyState title="No segments match" />
      ) : null}
      {shown.length ? (
        <>
          <table className="table table-cards">
            <caption className="sr-only">Segments in namespace {ns}</caption>
            <thead>
              <tr>
                <th scope="col" aria-sort={ariaSort(sort, 'name', 'key')}>
                  <SortButton field="name" sort={sort} onSort={onSort}>
                    Name
                  </SortButton>
                  <SortButton field="key" sort={sort} onSort={onSort}>
                    Key
                  </SortButton>
                </th>
                <th scope="col">Matches</th>
                <th scope="col">Constraints</th>
                <th scope="col" aria-sort={ariaSort(sort, 'updated')}>
                  <SortButton field="updated" sort={sort} onSort={onSort}>
                    Updated
                  </SortButton>
                </th>
                <th scope="col" aria-sort={ariaSort(sort, 'created')}>
                  <SortButton field="created" sort={sort} onSort={onSort}>
                    Created
                  </SortButton>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((s) => (
                <tr key={s.key}>
                  <td data-label="Segment">
                    <Link to={paths.segment(ns, s.key)} className="item-link">
                      {s.name || s.key}
                    </Link>
                    <code className="key">{s.key}</code>
                    {s.description ? <p className="muted clamp">{s.description}</p> : null}
                  </td>
                  <td data-label="Matches">
                    {s.matchType === 'ANY_MATCH_TYPE' ? 'any constraint' : 'all constraints'}
                  </td>
                  <td data-label="Constraints">{plural(s.constraints.length, 'constraint')}</td>
                  <td data-label="Updated">
                    <DateTime iso={s.updatedAt} relative />
                  </td>
                  <td data-label="Created">
                    <DateTime iso={s.createdAt} relative />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {filtered.length > PAGE_SIZE ? (
            <Pagination
              label="Segment pages"
              page={page}
              pageSize={PAGE_SIZE}
              total={filtered.length}
              onPage={(p) => setSearchParams({ page: p > 1 ? String(p) : undefined })}
            />
          ) : null}
        </>
      ) : null}
    </>
  );
}
