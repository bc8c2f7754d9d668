// Evaluate any flag of the namespace for an entity id and a context (as rows or as JSON), as an
// application would, and see the value, the reason, the segments and the server's explanation
// (`?explain=true`); the same request can be copied as a curl command.

import { type FormEvent, useId, useMemo, useState } from 'react';
import * as api from '../../api/api.js';
import { useFlags } from '../../api/queries.js';
import { ErrorNote } from '../../components/error-note.js';
import { TextField } from '../../components/field.js';
import { JsonEditor } from '../../components/json-editor.js';
import { type KeyValue, KeyValueRows, rowsToRecord } from '../../components/key-value-rows.js';
import { PageHeader } from '../../components/page-header.js';
import { Link, paths, useLocation } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';
import { contextFromJson, contextToJson, recordToRows } from './context-json.js';
import { curlCommand } from './curl.js';
import { EvaluationResult } from './evaluation-result.js';
import type { EvaluationOutcome } from './summary.js';

type FlagKind = 'BOOLEAN_FLAG_TYPE' | 'VARIANT_FLAG_TYPE';

export function ConsolePage({ ns }: { ns: string }) {
  const { search } = useLocation();
  // A client may evaluate but not list flags (issue 41): then the key is typed and its type chosen.
  const readable = usePermissions().can('read', ns);
  const flags = useFlags(ns, readable);
  const [kind, setKind] = useState<FlagKind>('BOOLEAN_FLAG_TYPE');
  const listId = useId();
  const flagInputId = useId();
  const [flagKey, setFlagKey] = useState(search.get('flag') ?? '');
  const [entityId, setEntityId] = useState('');
  const [rows, setRows] = useState<KeyValue[]>([{ key: '', value: '' }]);
  const [contextMode, setContextMode] = useState<'rows' | 'json'>('rows');
  const [contextText, setContextText] = useState('');
  const [curlState, setCurlState] = useState<'copied' | 'shown' | null>(null);
  const { hasToken } = useAuth();
  const [explain, setExplain] = useState(true);
  const [outcome, setOutcome] = useState<EvaluationOutcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const listed = useMemo(() => flags.data?.find((f) => f.key === flagKey.trim()), [flags.data, flagKey]);
  const typed = flagKey.trim() ? { key: flagKey.trim(), type: kind, name: '' } : undefined;
  const flag = readable ? listed : typed;
  const [flagTouched, setFlagTouched] = useState(false);
  const flagIssue =
    flagKey.trim() && flags.data && !flag
      ? `No flag "${flagKey.trim()}" in namespace ${ns}.`
      : flagTouched && !flagKey.trim()
        ? 'Choose a flag.'
        : undefined;

  const parsedJson = contextMode === 'json' ? contextFromJson(contextText) : undefined;
  const context = contextMode === 'json' ? (parsedJson?.context ?? {}) : rowsToRecord(rows);
  const curl =
    flag && !parsedJson?.problem
      ? curlCommand({
          origin: window.location.origin,
          kind: flag.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant',
          namespaceKey: ns,
          flagKey: flag.key,
          entityId,
          context,
          signedIn: hasToken,
        })
      : undefined;
  const switchContextMode = (mode: 'rows' | 'json') => {
    if (mode === contextMode) return;
    if (mode === 'json') setContextText(contextToJson(rowsToRecord(rows)));
    else if (parsedJson?.context) setRows(recordToRows(parsedJson.context));
    setContextMode(mode);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // Whatever was on screen belonged to the previous request: an error replaces it, it does not
    // sit beside it.
    setOutcome(null);
    if (!flag) {
      // The flag field already says what is wrong (its hint); say it there once and go there.
      setFlagTouched(true);
      document.getElementById(flagInputId)?.focus();
      return;
    }
    if (parsedJson?.problem) {
      setError(null);
      return;
    }
    setBusy(true);
    setError(null);
    const body = { namespaceKey: ns, flagKey: flag.key, entityId, context };
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
              placeholder={!readable ? 'The flag key' : flags.isPending ? 'Loading flags…' : 'Type to search flag keys'}
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
              {!readable ? (
                (flagIssue ?? `You may evaluate flags of namespace ${ns} but not list them: type the key.`)
              ) : flag ? (
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
          {readable ? null : (
            <fieldset className="radio-row">
              <legend>Flag type</legend>
              <label className="check">
                <input
                  type="radio"
                  name="flag-kind"
                  checked={kind === 'BOOLEAN_FLAG_TYPE'}
                  onChange={() => setKind('BOOLEAN_FLAG_TYPE')}
                />
                Boolean
              </label>
              <label className="check">
                <input
                  type="radio"
                  name="flag-kind"
                  checked={kind === 'VARIANT_FLAG_TYPE'}
                  onChange={() => setKind('VARIANT_FLAG_TYPE')}
                />
                Variant
              </label>
            </fieldset>
          )}
          <TextField
            label="Entity ID"
            value={entityId}
            onChange={setEntityId}
            placeholder="e.g. user-42"
            hint="The id your application sends (a user id, account id…). Percentages are stable per id."
          />
          <fieldset className="radio-row context-mode">
            <legend>Edit the context as</legend>
            <label className="check">
              <input
                type="radio"
                name="context-mode"
                checked={contextMode === 'rows'}
                onChange={() => switchContextMode('rows')}
                disabled={contextMode === 'json' && Boolean(parsedJson?.problem)}
              />
              Rows
            </label>
            <label className="check">
              <input
                type="radio"
                name="context-mode"
                checked={contextMode === 'json'}
                onChange={() => switchContextMode('json')}
              />
              JSON
            </label>
          </fieldset>
          {contextMode === 'rows' ? (
            <KeyValueRows legend="Context" rows={rows} onChange={setRows} keyLabel="Property" valueLabel="Value" />
          ) : (
            <JsonEditor
              label="Context (JSON)"
              value={contextText}
              onChange={setContextText}
              objectOnly
              rows={6}
              hint='An object of properties, e.g. {"plan": "gold"}; numbers and booleans are sent as text.'
              serverError={parsedJson?.problem}
            />
          )}
          <label className="check">
            <input type="checkbox" checked={explain} onChange={(e) => setExplain(e.target.checked)} />
            Ask the server to explain the result
          </label>
          <ErrorNote error={error} />
          <div className="actions">
            <button
              type="button"
              className="btn"
              onClick={async () => {
                if (!curl) return;
                try {
                  await navigator.clipboard.writeText(curl);
                  setCurlState('copied');
                } catch {
                  setCurlState('shown');
                }
              }}
              disabled={!curl}
            >
              Copy as curl
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? 'Evaluating…' : 'Evaluate'}
            </button>
          </div>
          {curlState && curl ? <CurlBox command={curl} copied={curlState === 'copied'} signedIn={hasToken} /> : null}
        </form>
        {outcome ? (
          <EvaluationResult outcome={outcome} entityId={entityId} />
        ) : (
          <div className="card muted result-placeholder">The result appears here.</div>
        )}
      </div>
    </>
  );
}

function CurlBox({ command, copied, signedIn }: { command: string; copied: boolean; signedIn: boolean }) {
  return (
    <section className="curl" aria-label="Request as curl">
      <p role="status" className="hint">
        {copied ? 'Copied to the clipboard:' : 'The clipboard is not available here; copy the command below:'}
      </p>
      <pre className="code" data-testid="curl-command">
        {command}
      </pre>
      {signedIn ? (
        <p className="hint">
          Set <code>VEXIL_TOKEN</code> to an API token first; the dashboard never copies its own.
        </p>
      ) : null}
    </section>
  );
}
