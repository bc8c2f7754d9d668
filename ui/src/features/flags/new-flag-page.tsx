// Create a flag: boolean (on/off with rollouts) or variant (rules choose between variants).

import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import * as api from '../../api/api.js';
import { keys } from '../../api/queries.js';
import type { FlagType } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { TextAreaField, TextField } from '../../components/field.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { Toggle } from '../../components/toggle.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { keyFromName, keyProblem } from '../../lib/format.js';
import { navigate, paths } from '../../lib/router.js';

const TYPES: { value: FlagType; title: string; text: string }[] = [
  {
    value: 'BOOLEAN_FLAG_TYPE',
    title: 'Boolean',
    text: 'On or off. Roll out to a percentage of users or to segments.',
  },
  {
    value: 'VARIANT_FLAG_TYPE',
    title: 'Variant',
    text: 'Choose between variants (e.g. "blue" / "green") with rules and percentages.',
  },
];

export function NewFlagPage({ ns }: { ns: string }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [type, setType] = useState<FlagType>('BOOLEAN_FLAG_TYPE');
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyTouched, setKeyTouched] = useState(false);
  const [description, setDescription] = useState('');
  const [enabled, setEnabled] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const effectiveKey = keyTouched ? key : keyFromName(name);
  const keyIssue = keyProblem(effectiveKey);
  const nameIssue = name.trim() ? undefined : 'Required.';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (keyIssue || nameIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      const flag = await api.createFlag(ns, { key: effectiveKey, name: name.trim(), description, enabled, type });
      await queryClient.invalidateQueries({ queryKey: keys.flags(ns) });
      notify(`Flag "${flag.key}" created`);
      navigate(paths.flag(ns, flag.key));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="New flag" crumbs={[{ label: 'Flags', to: paths.flags(ns) }]} />
      <form className="card form" onSubmit={submit} aria-label="New flag" noValidate>
        <fieldset className="type-choice">
          <legend>Type</legend>
          {TYPES.map((t) => (
            <label key={t.value} className={`choice${type === t.value ? ' choice-selected' : ''}`}>
              <input
                type="radio"
                name="flag-type"
                value={t.value}
                checked={type === t.value}
                onChange={() => setType(t.value)}
              />
              <span className="choice-title">{t.title}</span>
              <span className="choice-text">{t.text}</span>
            </label>
          ))}
          <p className="hint">The type cannot be changed later.</p>
        </fieldset>
        <TextField
          label="Name"
          value={name}
          onChange={setName}
          required
          autoFocus
          error={(submitted ? nameIssue : undefined) ?? fieldError(error, 'name')}
        />
        <TextField
          label="Key"
          value={effectiveKey}
          onChange={(v) => {
            setKeyTouched(true);
            setKey(v);
          }}
          required
          hint="Applications ask for the flag by this key. It cannot be changed later."
          error={(submitted || keyTouched ? keyIssue : undefined) ?? fieldError(error, 'key')}
        />
        <TextAreaField label="Description" value={description} onChange={setDescription} />
        <div className="field">
          <span className="label" id="new-flag-enabled">
            {type === 'BOOLEAN_FLAG_TYPE' ? 'Default value' : 'Enabled'}
          </span>
          <Toggle
            label={type === 'BOOLEAN_FLAG_TYPE' ? 'Default value' : 'Enabled'}
            checked={enabled}
            onChange={setEnabled}
            stateText={type === 'BOOLEAN_FLAG_TYPE' ? ['True', 'False'] : ['Enabled', 'Disabled']}
          />
          <p className="hint">
            {type === 'BOOLEAN_FLAG_TYPE'
              ? 'What the flag returns when no rollout matches.'
              : 'A disabled variant flag returns its default variant (or nothing) to everyone.'}
          </p>
        </div>
        <ErrorNote error={formError(error, 'key', 'name')} />
        <div className="actions">
          <button type="button" className="btn" onClick={() => navigate(paths.flags(ns))}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create flag'}
          </button>
        </div>
      </form>
    </>
  );
}
