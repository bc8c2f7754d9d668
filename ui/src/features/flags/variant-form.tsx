// Create or edit a variant: key, name, description and a JSON attachment checked as you type.

import { type FormEvent, useState } from 'react';
import type { VariantInput } from '../../api/api.js';
import type { Variant } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { TextAreaField, TextField } from '../../components/field.js';
import { JsonEditor, jsonProblem } from '../../components/json-editor.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { compactJson, prettyJson } from '../../lib/json.js';
import { useEditConflict } from '../history/edit-conflict.js';
import type { HistoryScope } from '../history/history-api.js';

interface VariantFormProps {
  /** The variant edited, as the page holds it now (absent: a new one). */
  initial?: Variant;
  /** Where the variant's flag's changes are listed (who changed it, when). */
  scope?: HistoryScope;
  /** `ifMatch`: the revision the edited variant was read at (ADR 0035). */
  onSave: (input: VariantInput, ifMatch: string | undefined) => Promise<unknown>;
  onCancel: () => void;
}

const variantRows = (v: { key: string; name: string; description: string; attachment: string }) =>
  [
    ['Key', v.key],
    ['Name', v.name],
    ['Description', v.description],
    ['Attachment', prettyJson(v.attachment)],
  ] as const;

export function VariantForm({ initial, scope, onSave, onCancel }: VariantFormProps) {
  const [key, setKey] = useState(initial?.key ?? '');
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [attachment, setAttachment] = useState(prettyJson(initial?.attachment ?? ''));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState(false);

  const conflict = useEditConflict({
    current: initial,
    rows: variantRows,
    mine: variantRows({ key, name, description, attachment }),
    onReload: (v) => {
      setKey(v.key);
      setName(v.name);
      setDescription(v.description);
      setAttachment(prettyJson(v.attachment));
    },
    scope: scope ?? { kind: 'namespace', ns: initial?.namespaceKey || 'default' },
  });

  const keyIssue = key.trim() ? undefined : 'Required.';
  const attachmentIssue = jsonProblem(attachment);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (keyIssue || attachmentIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave(
        {
          key: key.trim(),
          name,
          description,
          attachment: attachment.trim() ? compactJson(attachment) : '',
        },
        conflict.ifMatch,
      );
    } catch (err) {
      if (!conflict.refused(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = initial ? `Edit variant ${initial.key}` : 'New variant';
  return (
    <form className="card form form-nested" onSubmit={submit} aria-label={title} noValidate>
      <h3>{title}</h3>
      <div className="grid-2">
        <TextField
          label="Key"
          value={key}
          onChange={setKey}
          required
          autoFocus
          hint="What evaluations return, e.g. blue."
          error={(submitted ? keyIssue : undefined) ?? fieldError(error, 'key')}
        />
        <TextField label="Name" value={name} onChange={setName} error={fieldError(error, 'name')} />
      </div>
      <TextAreaField label="Description" value={description} onChange={setDescription} rows={2} />
      <JsonEditor
        label="Attachment"
        value={attachment}
        onChange={setAttachment}
        hint='Optional JSON sent with the variant, e.g. {"color": "#00f"}.'
        serverError={fieldError(error, 'attachment')}
      />
      {conflict.notice}
      <ErrorNote error={formError(error, 'key', 'name', 'attachment')} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || Boolean(attachmentIssue)}>
          {busy ? 'Saving…' : initial ? 'Save variant' : 'Add variant'}
        </button>
      </div>
    </form>
  );
}
