// Create or edit a rollout of a boolean flag: a threshold (a percentage of entities) or segments,
// and the value those entities get. A rollout's type cannot change after it is created.

import { type FormEvent, useState } from 'react';
import type { RolloutRuleInput, SegmentSelection } from '../../api/api.js';
import type { Rollout, Segment } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { SelectField, TextField } from '../../components/field.js';
import { parsePercent } from '../../lib/distribution.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { useEditConflict } from '../history/edit-conflict.js';
import { SegmentPicker, segmentKeysOf } from '../rules/segment-picker.js';

type Kind = 'threshold' | 'segment';

interface RolloutFormProps {
  ns: string;
  segments: Segment[];
  initial?: Rollout;
  /** The flag whose changes are listed when someone else changes the rollout. */
  flagKey?: string;
  /** `ifMatch`: the revision the edited rollout was read at (ADR 0035). */
  onSave: (description: string, rule: RolloutRuleInput, ifMatch: string | undefined) => Promise<unknown>;
  onCancel: () => void;
}

/** A rollout's fields as text: what a teammate's change is compared with, and what "Compare" lists. */
function rolloutRows(description: string, percentage: string, selection: SegmentSelection, value: string) {
  return [
    ['Description', description],
    ['Percentage', percentage],
    ['Segments', selection.segmentKeys.join(selection.segmentOperator === 'AND_SEGMENT_OPERATOR' ? ' and ' : ' or ')],
    ['Value', value],
  ] as const;
}

const percentageOf = (r: Rollout) => (r.threshold ? String(r.threshold.percentage) : '50');
const rolloutValueOf = (r: Rollout) => String(r.threshold?.value ?? r.segment?.value ?? true) as 'true' | 'false';
const selectionOf = (r: Rollout): SegmentSelection => ({
  segmentKeys: r.segment ? segmentKeysOf(r.segment) : [],
  segmentOperator: r.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
});

export function RolloutForm({ ns, segments, initial, flagKey, onSave, onCancel }: RolloutFormProps) {
  const [kind, setKind] = useState<Kind>(initial?.type === 'SEGMENT_ROLLOUT_TYPE' ? 'segment' : 'threshold');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [percentage, setPercentage] = useState(initial?.threshold ? String(initial.threshold.percentage) : '50');
  const [value, setValue] = useState<'true' | 'false'>(
    String(initial?.threshold?.value ?? initial?.segment?.value ?? true) as 'true' | 'false',
  );
  const [selection, setSelection] = useState<SegmentSelection>({
    segmentKeys: initial?.segment ? segmentKeysOf(initial.segment) : [],
    segmentOperator: initial?.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // "Choose at least one segment" is only news after a save attempt, not the moment Segments is picked.
  const [submitted, setSubmitted] = useState(false);

  const conflict = useEditConflict({
    current: initial,
    rows: (r) => rolloutRows(r.description, percentageOf(r), selectionOf(r), rolloutValueOf(r)),
    mine: rolloutRows(description, percentage, selection, value),
    onReload: (r) => {
      setDescription(r.description);
      setPercentage(percentageOf(r));
      setSelection(selectionOf(r));
      setValue(rolloutValueOf(r));
    },
    scope: flagKey ? { kind: 'flag', ns, key: flagKey } : { kind: 'namespace', ns },
  });

  const pct = parsePercent(percentage);
  const pctIssue =
    kind === 'threshold' && pct === undefined ? 'A number from 0 to 100 (at most two decimals).' : undefined;
  const segIssue =
    submitted && kind === 'segment' && selection.segmentKeys.length === 0 ? 'Choose at least one segment.' : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (pctIssue || (kind === 'segment' && selection.segmentKeys.length === 0)) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    const v = value === 'true';
    try {
      await onSave(
        description,
        kind === 'threshold'
          ? { threshold: { percentage: pct ?? 0, value: v } }
          : { segment: { ...selection, value: v } },
        conflict.ifMatch,
      );
    } catch (err) {
      if (!conflict.refused(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = initial ? 'Edit rollout' : 'New rollout';
  return (
    <form className="card form form-nested" onSubmit={submit} aria-label={title} noValidate>
      <h3>{title}</h3>
      {initial ? null : (
        <fieldset className="radio-row">
          <legend>Roll out by</legend>
          <label className="check">
            <input
              type="radio"
              name="rollout-kind"
              checked={kind === 'threshold'}
              onChange={() => setKind('threshold')}
            />
            Percentage of entities
          </label>
          <label className="check">
            <input type="radio" name="rollout-kind" checked={kind === 'segment'} onChange={() => setKind('segment')} />
            Segments
          </label>
        </fieldset>
      )}
      {kind === 'threshold' ? (
        <TextField
          label="Percentage"
          value={percentage}
          onChange={setPercentage}
          inputMode="decimal"
          hint="This share of entities (stable per entity id) gets the value below."
          error={pctIssue ?? fieldError(error, 'threshold.percentage')}
        />
      ) : (
        <SegmentPicker
          ns={ns}
          segments={segments}
          value={selection}
          onChange={setSelection}
          error={segIssue ?? fieldError(error, 'segmentKey', 'segmentKeys')}
        />
      )}
      <SelectField
        label="Value"
        value={value}
        onChange={setValue}
        options={[
          { value: 'true', label: 'true' },
          { value: 'false', label: 'false' },
        ]}
        hint="What the flag returns for the entities this rollout matches."
      />
      <TextField label="Description" value={description} onChange={setDescription} />
      {conflict.notice}
      <ErrorNote error={formError(error, 'threshold.percentage', 'segmentKey', 'segmentKeys')} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : initial ? 'Save rollout' : 'Create rollout'}
        </button>
      </div>
    </form>
  );
}
