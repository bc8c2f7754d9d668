// A namespace's activity: every recorded change, newest first, filterable by resource type and key
// (the filters live in the URL, so a filtered view can be shared). Deleted flags and segments are
// found and restored here, since their own pages are gone.

import { TextField } from '../../components/field.js';
import { PageHeader } from '../../components/page-header.js';
import { setSearchParams, useLocation } from '../../lib/router.js';
import { ChangeList } from './change-list.js';
import { RESOURCE_TYPES, resourceNoun } from './describe.js';

export function ActivityPage({ ns }: { ns: string }) {
  const { search } = useLocation();
  const type = search.get('type') ?? '';
  const key = search.get('key') ?? '';
  return (
    <>
      <PageHeader title="Activity" />
      <p className="lead">
        Who changed what in <strong>{ns}</strong>, newest first. Revert a change to restore the state before it — a
        deleted flag comes back with its variants and rules.
      </p>
      <search className="filters" aria-label="Filter activity">
        <div className="field">
          <label htmlFor="activity-type-filter">Resource</label>
          <select id="activity-type-filter" value={type} onChange={(e) => setSearchParams({ type: e.target.value })}>
            <option value="">All resources</option>
            {RESOURCE_TYPES.filter((t) => t !== 'token').map((t) => (
              <option key={t} value={t}>
                {resourceNoun(t)}
              </option>
            ))}
          </select>
        </div>
        <TextField
          label="Key or id"
          type="search"
          value={key}
          placeholder="e.g. checkout"
          onChange={(v) => setSearchParams({ key: v.trim() })}
        />
      </search>
      <ChangeList
        compact
        key={`${ns}|${type}|${key}`}
        scope={{ kind: 'namespace', ns, ...(type ? { type } : {}), ...(key ? { key } : {}) }}
        empty={type || key ? 'No change matches these filters.' : 'Changes made from now on appear here.'}
      />
    </>
  );
}
