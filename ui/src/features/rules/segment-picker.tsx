// Choose one or several segments and, with several, whether all (AND) or any (OR) must match.

import { useId, useState } from 'react';
import type { SegmentSelection } from '../../api/api.js';
import type { Segment, SegmentOperator } from '../../api/types.js';
import { EmptyState } from '../../components/empty-state.js';
import { Link, paths } from '../../lib/router.js';

interface SegmentPickerProps {
  ns: string;
  segments: Segment[];
  value: SegmentSelection;
  onChange: (value: SegmentSelection) => void;
  error?: string;
}

export function SegmentPicker({ ns, segments, value, onChange, error }: SegmentPickerProps) {
  const id = useId();
  const [filter, setFilter] = useState('');
  if (segments.length === 0) {
    return (
      <EmptyState title="No segments in this namespace">
        Rules target segments (groups of users described by constraints).{' '}
        <Link to={paths.newSegment(ns)}>Create a segment</Link> first.
      </EmptyState>
    );
  }
  const q = filter.trim().toLowerCase();
  const visible = q
    ? segments.filter((s) => `${s.key}\n${s.name}`.toLowerCase().includes(q) || value.segmentKeys.includes(s.key))
    : segments;
  const toggle = (key: string, on: boolean) =>
    onChange({ ...value, segmentKeys: on ? [...value.segmentKeys, key] : value.segmentKeys.filter((k) => k !== key) });
  const setOperator = (segmentOperator: SegmentOperator) => onChange({ ...value, segmentOperator });

  return (
    <fieldset
      className="segment-picker"
      aria-describedby={error ? `${id}-error` : undefined}
      data-invalid={error ? true : undefined}
    >
      <legend>Segments</legend>
      {segments.length > 8 ? (
        <label className="inline-filter">
          <span className="sr-only">Filter segments</span>
          <input
            type="search"
            placeholder="Filter segments"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </label>
      ) : null}
      <div className="checklist">
        {visible.map((s) => (
          <label key={s.key} className="check">
            <input
              type="checkbox"
              checked={value.segmentKeys.includes(s.key)}
              onChange={(e) => toggle(s.key, e.target.checked)}
            />
            <span>
              {s.name || s.key} <code className="key">{s.key}</code>
            </span>
          </label>
        ))}
      </div>
      {value.segmentKeys.length > 1 ? (
        <div className="radio-row" role="radiogroup" aria-label="Segments must match">
          <span className="label">Match when the entity is in</span>
          <label className="check">
            <input
              type="radio"
              name={`${id}-op`}
              checked={value.segmentOperator === 'OR_SEGMENT_OPERATOR'}
              onChange={() => setOperator('OR_SEGMENT_OPERATOR')}
            />
            any of them (OR)
          </label>
          <label className="check">
            <input
              type="radio"
              name={`${id}-op`}
              checked={value.segmentOperator === 'AND_SEGMENT_OPERATOR'}
              onChange={() => setOperator('AND_SEGMENT_OPERATOR')}
            />
            all of them (AND)
          </label>
        </div>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/** A rule's or rollout's segments as one list, whichever of Flipt's two fields holds them. */
export function segmentKeysOf(x: { segmentKey: string; segmentKeys: string[] }): string[] {
  return x.segmentKeys.length ? x.segmentKeys : x.segmentKey ? [x.segmentKey] : [];
}
