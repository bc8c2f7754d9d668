// Evaluate any flag of the namespace for an entity id and a context, as an application would, and see
// the value, the reason, the segments and the server's explanation (`?explain=true`).

import { type FormEvent, useId, useMemo, useState } from 'react';
import * as api from '../../api/api.js';
import { useFlags } from '../../api/queries.js';
import { ErrorNote } from '../../components/error-note.js';
import { TextField } from '../../components/field.js';
import { type KeyValue, KeyValueRows, rowsToRecord } from '../../components/key-value-rows.js';
import { PageHeader } from '../../components/page-header.js';
import { Link, paths, useLocation } from '../../lib/router.js';
import { type EvaluationOutcome, EvaluationResult } from './evaluation-result.js';

export function ConsolePage({ ns }: { ns: string }) {
  const { search } = useLocation();
  const flags = useFlags(ns);
  const listId = useId();
  const flagInputId = useId();
  const [flagKey, setFlagKey] = useState(search.get('flag') ?? '');
  const [entityId, setEntityId] = useState('');
  const [rows, setRows] = useState<KeyValue[]>([{ key: '', value: '' }]);
  const [explain, setExplain] = useState(true);
  const [outcome, setOutcome] = useState<EvaluationOutcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const flag = useMemo(() => flags.data?.find((f) => f.key === flagKey.trim()), [flags.data, flagKey]);
  const flagIssue =
    flagKey.trim() && flags.data && !flag ? `No flag "${flagKey.trim()}" in namespace ${ns}.` : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!flag) {
      setError(new Error(flagKey.trim() ? `No flag "${flagKey.trim()}" in namespace ${ns}.` : 'Choose a flag.'));
      return;
    }
    setBusy(true);
    setError(null);
    const body = { namespaceKey: ns, flagKey: flag.key, entityId, context: rowsToRecord(rows) };
    try {
      setOutcome(
        flag.type === 'BOOLEAN_FLAG_TYPE'
          ? { kind: 'boolean', result: await api.evaluateBoolean(body, explain) }
          : { kind: 'variant', result: await api.evaluateVariant(body, explain) },
      );
    } catch (err) {
      setOutcome(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="Console" />
      <p className="lead">Check what a flag returns for an entity before your users see it. Nothing is changed.</p>
      <div className="console-grid">
        <form className="card form" onSubmit={submit} aria-label="Evaluate a flag" noValidate>
          <div className={`field${flagIssue ? ' field-invalid' : ''}`}>
            <label htmlFor={flagInputId}>
              Flag
              <span className="required" aria-hidden="true">
                {' '}
                *
              </span>
            </label>
            <input
              id={flagInputId}
              list={listId}
              value={flagKey}
              onChange={(e) => setFlagKey(e.target.value)}
              placeholder={flags.isPending ? 'Loading flags…' : 'Type to search flag keys'}
              autoComplete="off"
              aria-invalid={flagIssue ? true : undefined}
              aria-describedby={`${flagInputId}-hint`}
              required
            />
            <datalist id={listId}>
              {flags.data?.map((f) => (
                <option key={f.key} value={f.key}>
                  {f.name}
                </option>
              ))}
            </datalist>
            <p className="hint" id={`${flagInputId}-hint`}>
              {flag ? (
                <>
                  {flag.type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean flag' : 'Variant flag'}: {flag.name} ·{' '}
                  <Link to={paths.flag(ns, flag.key)}>open</Link>
                </>
              ) : (
                (flagIssue ?? `Any flag of namespace ${ns}.`)
              )}
            </p>
          </div>
          <ErrorNote error={flags.error} />
          <TextField
            label="Entity ID"
            value={entityId}
            onChange={setEntityId}
            placeholder="e.g. user-42"
            hint="The id your application sends (a user id, account id…). Percentages are stable per id."
          />
          <KeyValueRows legend="Context" rows={rows} onChange={setRows} keyLabel="Property" valueLabel="Value" />
          <label className="check">
            <input type="checkbox" checked={explain} onChange={(e) => setExplain(e.target.checked)} />
            Ask the server to explain the result
          </label>
          <ErrorNote error={error} />
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? 'Evaluating…' : 'Evaluate'}
            </button>
          </div>
        </form>
        {outcome ? (
          <EvaluationResult outcome={outcome} />
        ) : (
          <div className="card muted result-placeholder">The result appears here.</div>
        )}
      </div>
    </>
  );
}
