// A segment's key (on create), name, description and match type (all constraints or any).

import { type FormEvent, useState } from 'react';
import type { SegmentInput } from '../../api/api.js';
import type { MatchType, Segment } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { TextAreaField, TextField } from '../../components/field.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { keyFromName, keyProblem } from '../../lib/format.js';
import { useUnsavedChanges } from '../../lib/router.js';
import { useEditConflict } from '../history/edit-conflict.js';

interface SegmentFormProps {
  /** The segment edited, as the page holds it now (absent: a new one). */
  initial?: Segment;
  /** `ifMatch`: the revision the edited segment was read at (ADR 0035). */
  onSave: (input: SegmentInput, ifMatch: string | undefined) => Promise<unknown>;
  onCancel?: () => void;
  submitLabel: string;
}

export function SegmentForm({ initial, onSave, onCancel, submitLabel }: SegmentFormProps) {
  const [name, setName] = useState(initial?.name ?? '');
  const [key, setKey] = useState(initial?.key ?? '');
  const [keyTouched, setKeyTouched] = useState(Boolean(initial));
  const [description, setDescription] = useState(initial?.description ?? '');
  const [matchType, setMatchType] = useState<MatchType>(initial?.matchType ?? 'ALL_MATCH_TYPE');
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const matchLabel = (m: MatchType) => (m === 'ANY_MATCH_TYPE' ? 'any constraint' : 'all constraints');
  const conflict = useEditConflict({
    current: initial,
    rows: (s) => [
      ['Name', s.name],
      ['Description', s.description],
      ['Matches', matchLabel(s.matchType)],
    ],
    mine: [
      ['Name', name],
      ['Description', description],
      ['Matches', matchLabel(matchType)],
    ],
    onReload: (s) => {
      setName(s.name);
      setDescription(s.description);
      setMatchType(s.matchType);
    },
    scope: { kind: 'segment', ns: initial?.namespaceKey || 'default', key: initial?.key ?? '' },
  });

  const effectiveKey = keyTouched ? key : keyFromName(name);
  const keyIssue = initial ? undefined : keyProblem(effectiveKey);
  const nameIssue = name.trim() ? undefined : 'Required.';
  const dirty =
    !initial || name !== initial.name || description !== initial.description || matchType !== initial.matchType;

  // A new segment's form navigates away once created; only an existing one's edits can be lost.
  useUnsavedChanges(Boolean(initial) && dirty);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (keyIssue || nameIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave({ key: effectiveKey, name: name.trim(), description, matchType }, conflict.ifMatch);
    } catch (err) {
      if (!conflict.refused(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={submit} aria-label={initial ? 'Segment details' : 'New segment'} noValidate>
      {initial ? <h2>Details</h2> : null}
      <TextField
        label="Name"
        value={name}
        onChange={setName}
        required
        autoFocus={!initial}
        error={(submitted ? nameIssue : undefined) ?? fieldError(error, 'name')}
      />
      {initial ? null : (
        <TextField
          label="Key"
          value={effectiveKey}
          onChange={(v) => {
            setKeyTouched(true);
            setKey(v);
          }}
          required
          hint="Rules and rollouts refer to the segment by this key. It cannot be changed later."
          error={(submitted || keyTouched ? keyIssue : undefined) ?? fieldError(error, 'key')}
        />
      )}
      <TextAreaField label="Description" value={description} onChange={setDescription} rows={2} />
      <fieldset className="radio-row">
        <legend>An entity is in the segment when it matches</legend>
        <label className="check">
          <input
            type="radio"
            name="match-type"
            checked={matchType === 'ALL_MATCH_TYPE'}
            onChange={() => setMatchType('ALL_MATCH_TYPE')}
          />
          all constraints
        </label>
        <label className="check">
          <input
            type="radio"
            name="match-type"
            checked={matchType === 'ANY_MATCH_TYPE'}
            onChange={() => setMatchType('ANY_MATCH_TYPE')}
          />
          any constraint
        </label>
      </fieldset>
      {conflict.notice}
      <ErrorNote error={formError(error, 'name', 'key')} />
      <div className="actions">
        {onCancel ? (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={busy || !dirty}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
