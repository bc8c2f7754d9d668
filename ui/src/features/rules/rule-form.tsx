// Create or edit a rule of a variant flag: which segments it targets (OR/AND) and how it splits the
// matching traffic between variants. Saving needs at least one segment and a total of at most 100 %
// (the rest gets no variant). What is missing is said after a save attempt, beside the field, and
// focus goes there.

import { type FormEvent, useState } from 'react';
import type { SegmentSelection } from '../../api/api.js';
import type { Flag, Rule, Segment } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { formatPercent, parsePercent } from '../../lib/distribution.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { useEditConflict } from '../history/edit-conflict.js';
import { DistributionEditor, type DistributionValues, distributionStatus, evenValues } from './distribution-editor.js';
import type { DistributionInput } from './save-rule.js';
import { SegmentPicker, segmentKeysOf } from './segment-picker.js';

interface RuleFormProps {
  ns: string;
  flag: Flag;
  segments: Segment[];
  initial?: Rule;
  /** `ifMatch`: the revision the edited rule was read at (ADR 0035). */
  onSave: (
    selection: SegmentSelection,
    distributions: DistributionInput[],
    ifMatch: string | undefined,
  ) => Promise<unknown>;
  onCancel: () => void;
}

function initialValues(flag: Flag, rule?: Rule): DistributionValues {
  if (!rule) return evenValues(flag.variants);
  const byVariant = new Map(rule.distributions.map((d) => [d.variantId, d.rollout]));
  return Object.fromEntries(flag.variants.map((v) => [v.id, formatPercent(byVariant.get(v.id) ?? 0)]));
}

export function RuleForm({ ns, flag, segments, initial, onSave, onCancel }: RuleFormProps) {
  const [selection, setSelection] = useState<SegmentSelection>({
    segmentKeys: initial ? segmentKeysOf(initial) : [],
    segmentOperator: initial?.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
  });
  const [values, setValues] = useState<DistributionValues>(() => initialValues(flag, initial));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState(false);

  // The rule's fields as text: what a teammate's change is compared with, and what "Compare" lists.
  const rowsOf = (sel: SegmentSelection, vals: DistributionValues) => [
    ['Segments', sel.segmentKeys.join(sel.segmentOperator === 'AND_SEGMENT_OPERATOR' ? ' and ' : ' or ')] as const,
    ...flag.variants.map((v) => [`${v.key} %`, vals[v.id] ?? ''] as const),
  ];
  const conflict = useEditConflict({
    current: initial,
    rows: (rule) =>
      rowsOf({ segmentKeys: segmentKeysOf(rule), segmentOperator: rule.segmentOperator }, initialValues(flag, rule)),
    mine: rowsOf(selection, values),
    onReload: (rule) => {
      setSelection({ segmentKeys: segmentKeysOf(rule), segmentOperator: rule.segmentOperator });
      setValues(initialValues(flag, rule));
    },
    scope: { kind: 'flag', ns, key: flag.key },
  });

  const hasVariants = flag.variants.length > 0;
  const status = distributionStatus(flag.variants, values);
  const segmentsMissing = selection.segmentKeys.length === 0;
  const canSave = !segmentsMissing && (!hasVariants || status.valid);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (busy) return;
    if (!canSave) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      const distributions = flag.variants.map((v) => ({
        variantId: v.id,
        rollout: parsePercent(values[v.id] ?? '') ?? 0,
      }));
      await onSave(selection, distributions, conflict.ifMatch);
    } catch (err) {
      if (!conflict.refused(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = initial ? `Edit rule ${initial.rank}` : 'New rule';
  return (
    <form className="card form form-nested" onSubmit={submit} aria-label={title} noValidate>
      <h3>{title}</h3>
      <SegmentPicker
        ns={ns}
        segments={segments}
        value={selection}
        onChange={setSelection}
        error={
          (submitted && segmentsMissing ? 'Choose at least one segment.' : undefined) ??
          fieldError(error, 'segmentKey', 'segmentKeys', 'segmentKey or segmentKeys')
        }
      />
      {hasVariants ? (
        <DistributionEditor variants={flag.variants} values={values} onChange={setValues} />
      ) : (
        <p className="warning">
          This flag has no variants yet, so the rule will return the default variant. Add variants on the Details tab to
          split traffic.
        </p>
      )}
      {conflict.notice}
      <ErrorNote error={formError(error, 'segmentKey', 'segmentKeys', 'segmentKey or segmentKeys')} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : initial ? 'Save rule' : 'Create rule'}
        </button>
      </div>
    </form>
  );
}
