// The flags of a namespace: search by key, name or description, filter by type and state, sort by
// name, key or date, page through thousands. Filters, sort and page live in the URL, so a view can be
// shared and survives a reload.

import { useDeferredValue, useMemo } from 'react';
import { useFlags } from '../../api/queries.js';
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
import { FirstRunSnippets } from './first-run-snippets.js';
import { FlagStateBadge, TypeBadge } from './flag-badges.js';
import { type EnabledFilter, filterFlags, indexFlags, type TypeFilter } from './flag-filter.js';

export function FlagsPage({ ns }: { ns: string }) {
  const flags = useFlags(ns);
  const editWhy = usePermissions().reason('edit', ns);
  const { search } = useLocation();
  const q = search.get('q') ?? '';
  const type = (search.get('type') ?? '') as TypeFilter;
  const enabled = (search.get('enabled') ?? '') as EnabledFilter;
  const pageSize = [25, 50, 100].includes(Number(search.get('size'))) ? Number(search.get('size')) : 25;
  const sortParam = search.get('sort');
  const sort = useMemo(() => parseSort(sortParam), [sortParam]);
  const deferredQ = useDeferredValue(q);

  const index = useMemo(() => indexFlags(flags.data ?? []), [flags.data]);
  const filtered = useMemo(
    () => sortItems(filterFlags(index, { q: deferredQ, type, enabled }), sort),
    [index, deferredQ, type, enabled, sort],
  );
  const pages = Math.max(1, Math.ceil(filtered.length / pageSize));
  const page = Math.min(Math.max(1, Number(search.get('page')) || 1), pages);
  const shown = filtered.slice((page - 1) * pageSize, page * pageSize);
  const filtering = Boolean(q || type || enabled);
  const onSort = (next: Sort) => setSearchParams({ sort: formatSort(next), page: undefined });

  return (
    <>
      <PageHeader
        title="Flags"
        actions={
          editWhy ? null : (
            <Link to={paths.newFlag(ns)} className="btn btn-primary">
              New flag
            </Link>
          )
        }
      />
      <NotAllowedNote reason={editWhy} />
      <search className="filters" aria-label="Filter flags">
        <TextField
          label="Search"
          type="search"
          value={q}
          placeholder="Key, name or description"
          onChange={(v) => setSearchParams({ q: v, page: undefined })}
        />
        <div className="field">
          <label htmlFor="flag-type-filter">Type</label>
          <select
            id="flag-type-filter"
            value={type}
            onChange={(e) => setSearchParams({ type: e.target.value, page: undefined })}
          >
            <option value="">All types</option>
            <option value="variant">Variant</option>
            <option value="boolean">Boolean</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="flag-enabled-filter">State</label>
          <select
            id="flag-enabled-filter"
            value={enabled}
            onChange={(e) => setSearchParams({ enabled: e.target.value, page: undefined })}
          >
            <option value="">Enabled and disabled</option>
            <option value="enabled">Enabled / default true</option>
            <option value="disabled">Disabled / default false</option>
          </select>
        </div>
      </search>
      {flags.isPending ? <Loading label="Loading flags…" /> : null}
      <ErrorNote error={flags.error} />
      {flags.data && flags.data.length === 0 ? (
        <EmptyState title="No flags in this namespace yet">
          <p>Flags turn features on and off, or choose between variants, without a deploy.</p>
          {editWhy ? null : (
            <Link to={paths.newFlag(ns)} className="btn btn-primary">
              Create the first flag
            </Link>
          )}
          <FirstRunSnippets ns={ns} />
        </EmptyState>
      ) : null}
      {flags.data && flags.data.length > 0 && filtered.length === 0 ? (
        <EmptyState title="No flags match">
          <button
            type="button"
            className="btn"
            onClick={() => setSearchParams({ q: undefined, type: undefined, enabled: undefined, page: undefined })}
          >
            Clear filters
          </button>
        </EmptyState>
      ) : null}
      {shown.length > 0 ? (
        <>
          <p className="muted" aria-live="polite">
            {filtering
              ? `${filtered.length.toLocaleString()} of ${plural(flags.data?.length ?? 0, 'flag')} match`
              : plural(filtered.length, 'flag')}
          </p>
          <table className="table table-cards">
            <caption className="sr-only">Flags in namespace {ns}</caption>
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
                <th scope="col">Type</th>
                <th scope="col">State</th>
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
              {shown.map((f) => (
                <tr key={f.key}>
                  <td data-label="Flag">
                    <Link to={paths.flag(ns, f.key)} className="item-link">
                      {f.name || f.key}
                    </Link>
                    <code className="key">{f.key}</code>
                    {f.description ? <p className="muted clamp">{f.description}</p> : null}
                  </td>
                  <td data-label="Type">
                    <TypeBadge type={f.type} />
                  </td>
                  <td data-label="State">
                    <FlagStateBadge ns={ns} flag={f} />
                  </td>
                  <td data-label="Updated">
                    <DateTime iso={f.updatedAt} relative />
                  </td>
                  <td data-label="Created">
                    <DateTime iso={f.createdAt} relative />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination
            label="Flag pages"
            page={page}
            pageSize={pageSize}
            total={filtered.length}
            onPage={(p) => setSearchParams({ page: p > 1 ? String(p) : undefined })}
            onPageSize={(s) => setSearchParams({ size: s === 25 ? undefined : String(s), page: undefined })}
          />
        </>
      ) : null}
    </>
  );
}
