// Create or edit one constraint of a segment. It offers only the operators the server accepts for the
// chosen type (behavior.md §2.1), hides the value for operators that compare nothing, takes
// `isoneof` / `isnotoneof` values as a list, and datetimes through a date/time picker.

import { type FormEvent, useState } from 'react';
import type { ConstraintInput } from '../../api/api.js';
import type { ComparisonType, Constraint } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { SelectField, TextField } from '../../components/field.js';
import { fromLocalInput, isDateOnly, localZoneLabel, toLocalInput } from '../../lib/datetime.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import {
  COMPARISON_TYPES,
  isListOperator,
  isNoValueOperator,
  MAX_LIST_VALUES,
  operatorsFor,
} from '../../lib/operators.js';
import { isNumberText, ListEditor } from './list-editor.js';

interface ConstraintEditorProps {
  initial?: Constraint;
  onSave: (input: ConstraintInput) => Promise<unknown>;
  onCancel: () => void;
}

function parseList(value: string): string[] {
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed.map((x) => String(x)) : [];
  } catch {
    return value ? [value] : [];
  }
}

export function ConstraintEditor({ initial, onSave, onCancel }: ConstraintEditorProps) {
  const [type, setType] = useState<ComparisonType>(
    // A type the server could not name (UNKNOWN) is edited as a string constraint.
    initial && initial.type !== 'UNKNOWN_COMPARISON_TYPE' ? initial.type : 'STRING_COMPARISON_TYPE',
  );
  const [property, setProperty] = useState(initial?.property ?? '');
  const [operator, setOperator] = useState(initial?.operator ?? 'eq');
  const [text, setText] = useState(
    initial && !isListOperator(initial.operator) && initial.type !== 'DATETIME_COMPARISON_TYPE' ? initial.value : '',
  );
  const [list, setList] = useState<string[]>(
    initial && isListOperator(initial.operator) ? parseList(initial.value) : [],
  );
  const [dateOnly, setDateOnly] = useState(
    Boolean(initial && initial.type === 'DATETIME_COMPARISON_TYPE' && isDateOnly(initial.value)),
  );
  const [date, setDate] = useState(initial && isDateOnly(initial.value) ? initial.value : '');
  const [dateTime, setDateTime] = useState(
    initial?.type === 'DATETIME_COMPARISON_TYPE' ? toLocalInput(initial.value) : '',
  );
  const [description, setDescription] = useState(initial?.description ?? '');
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const operators = operatorsFor(type);
  const isEntity = type === 'ENTITY_ID_COMPARISON_TYPE';
  const noValue = isNoValueOperator(operator);
  const listOp = isListOperator(operator);
  const isDatetime = type === 'DATETIME_COMPARISON_TYPE';
  const isNumber = type === 'NUMBER_COMPARISON_TYPE';

  const changeType = (next: ComparisonType) => {
    setType(next);
    const allowed = operatorsFor(next).map((o) => o.value);
    if (!allowed.includes(operator)) setOperator(allowed[0] ?? 'eq');
    if (next === 'ENTITY_ID_COMPARISON_TYPE') setProperty('entityId');
    else if (type === 'ENTITY_ID_COMPARISON_TYPE' && property === 'entityId') setProperty('');
    if (next === 'NUMBER_COMPARISON_TYPE') setList((l) => l.filter(isNumberText));
  };

  const value = (): string => {
    if (noValue) return '';
    if (listOp) return JSON.stringify(isNumber ? list.map(Number) : list);
    if (isDatetime) return dateOnly ? date : fromLocalInput(dateTime);
    return text;
  };

  const propertyIssue = property.trim() ? undefined : 'Required.';
  let valueIssue: string | undefined;
  if (!noValue) {
    if (listOp && list.length === 0) valueIssue = 'Add at least one value.';
    else if (listOp && list.length > MAX_LIST_VALUES) valueIssue = `At most ${MAX_LIST_VALUES} values.`;
    else if (isDatetime && !value()) valueIssue = dateOnly ? 'Pick a date.' : 'Pick a date and time.';
    else if (!listOp && !isDatetime && text === '') valueIssue = 'Required.';
    else if (!listOp && isNumber && !isNumberText(text)) valueIssue = 'Enter a number, e.g. 42 or 3.5.';
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (propertyIssue || valueIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave({ type, property: property.trim(), operator, value: value(), description });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const shownValueIssue = (submitted ? valueIssue : undefined) ?? fieldError(error, 'value');
  const title = initial ? 'Edit constraint' : 'New constraint';
  return (
    <form className="card form form-nested constraint-editor" onSubmit={submit} aria-label={title} noValidate>
      <h3>{title}</h3>
      <div className="grid-3">
        <SelectField
          label="Type"
          value={type}
          onChange={changeType}
          options={COMPARISON_TYPES}
          error={fieldError(error, 'type')}
        />
        <TextField
          label="Property"
          value={property}
          onChange={setProperty}
          readOnly={isEntity}
          required
          placeholder="e.g. plan"
          hint={isEntity ? 'Entity ID constraints compare the evaluated entity id.' : 'The context key to compare.'}
          error={(submitted ? propertyIssue : undefined) ?? fieldError(error, 'property')}
        />
        <SelectField
          label="Operator"
          value={operator}
          onChange={setOperator}
          options={operators}
          error={fieldError(error, 'operator')}
        />
      </div>
      {noValue ? (
        <p className="hint">This operator needs no value.</p>
      ) : listOp ? (
        <ListEditor
          label="Values"
          values={list}
          onChange={setList}
          numeric={isNumber}
          max={MAX_LIST_VALUES}
          error={shownValueIssue}
        />
      ) : isDatetime ? (
        <fieldset className="datetime-value">
          <legend>Value</legend>
          <label className="check">
            <input type="checkbox" checked={dateOnly} onChange={(e) => setDateOnly(e.target.checked)} />
            Date only (midnight UTC)
          </label>
          {dateOnly ? (
            <TextField label="Date" type="date" value={date} onChange={setDate} error={shownValueIssue} />
          ) : (
            <TextField
              label={`Date and time (your time, ${localZoneLabel()})`}
              type="datetime-local"
              step="1"
              value={dateTime}
              onChange={setDateTime}
              hint={dateTime ? `Saved as ${fromLocalInput(dateTime)} (UTC)` : undefined}
              error={shownValueIssue}
            />
          )}
        </fieldset>
      ) : (
        <TextField
          label="Value"
          value={text}
          onChange={setText}
          inputMode={isNumber ? 'decimal' : undefined}
          placeholder={isNumber ? 'e.g. 42' : undefined}
          error={shownValueIssue}
        />
      )}
      <TextField
        label="Description"
        value={description}
        onChange={setDescription}
        hint="Optional note for other operators."
      />
      <ErrorNote error={formError(error, 'type', 'property', 'operator', 'value')} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : initial ? 'Save constraint' : 'Add constraint'}
        </button>
      </div>
    </form>
  );
}
