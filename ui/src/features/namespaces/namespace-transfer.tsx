// Moving namespaces in and out in Flipt's document format (the server's /export and /import): export a
// namespace as a file, import a file (always previewed as a dry run first, then applied in one
// transaction), and copy a namespace under a new key (its export imported under that key, previewed
// the same way).

import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import * as api from '../../api/api.js';
import { ErrorNote } from '../../components/error-note.js';
import { useNotify } from '../../components/notices.js';
import { documentNamespace } from '../../lib/document-namespace.js';

/** Offers `text` as a file download. */
function download(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** "3 flags, 1 segment" for the entries of one list. */
function counts(entries: api.ImportEntry[]): string {
  const byType = new Map<string, number>();
  for (const e of entries) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  return [...byType].map(([type, n]) => plural(n, type)).join(', ');
}

/** What an import did, or would do: counts, then the objects by name. */
export function ImportSummary({ result, done }: { result: api.ImportResult; done: boolean }) {
  const lines: [string, api.ImportEntry[]][] = [
    [done ? 'Created' : 'Will create', result.created],
    [done ? 'Skipped (already there)' : 'Will skip (already there)', result.skipped],
    [done ? 'Deleted' : 'Will delete', result.dropped],
  ];
  const shown = lines.filter(([, entries]) => entries.length > 0);
  if (shown.length === 0) return <p>Nothing to import: the document holds no flags or segments.</p>;
  return (
    <dl className="summary" aria-label={done ? 'Import result' : 'Import preview'}>
      {shown.map(([title, entries]) => (
        <div key={title}>
          <dt>
            {title}: {counts(entries)}
          </dt>
          <dd>
            {entries.map((e) => (
              <code key={`${e.namespace}/${e.type}/${e.key}`} className="key">
                {e.type === 'namespace' ? e.key : `${e.namespace}/${e.key}`}
              </code>
            ))}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Downloads the namespace as a Flipt 1.4 YAML document. */
export function ExportButton({ namespaceKey }: { namespaceKey: string }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        aria-label={`Export namespace ${namespaceKey}`}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            download(
              await api.exportNamespace(namespaceKey, 'yaml', true),
              `${namespaceKey}.features.yml`,
              'application/yaml',
            );
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        Export
      </button>
      <ErrorNote error={error} />
    </>
  );
}

/** A document to import: its text and content type. */
export interface ImportDocument {
  text: string;
  contentType: string;
  /** The namespace it imports into, when known (api.ImportOptions.namespaceKey). */
  namespaceKey?: string | undefined;
}

/**
 * The preview-then-import flow both forms share: `run(true)` asks for a dry run and keeps its result
 * as the preview; `run(false)` imports, refreshes every query (anything on screen may have changed)
 * and hands the result to `onImported`.
 */
export function usePreviewedImport(
  documentOf: () => Promise<ImportDocument | undefined>,
  options: api.ImportOptions,
  onImported: (result: api.ImportResult) => void,
) {
  const queryClient = useQueryClient();
  const [preview, setPreview] = useState<api.ImportResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const document = await documentOf();
      if (!document) return;
      const result = await api.importDocument(document.text, document.contentType, {
        ...options,
        dryRun,
        namespaceKey: document.namespaceKey,
      });
      if (dryRun) setPreview(result);
      else {
        await queryClient.invalidateQueries();
        onImported(result);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const reset = () => {
    setPreview(null);
    setError(null);
  };
  return { preview, error, busy, run, reset };
}

/** The preview, the error and the buttons under both forms; `children` is the primary button. */
export function PreviewFooter({
  preview,
  error,
  onClose,
  children,
}: {
  preview: api.ImportResult | null;
  error: unknown;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <>
      {preview ? <ImportSummary result={preview} done={false} /> : null}
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        {children}
      </div>
    </>
  );
}

/** Upload a document, see what it would do, then import it. */
export function ImportPanel({ onClose }: { onClose: () => void }) {
  const id = useId();
  const notify = useNotify();
  const [file, setFile] = useState<(ImportDocument & { name: string }) | null>(null);
  const [skipExisting, setSkipExisting] = useState(true);
  const { preview, error, busy, run, reset } = usePreviewedImport(
    async () => file ?? undefined,
    { skipExisting },
    (result) => {
      notify(`Imported ${file?.name}: ${counts(result.created) || 'nothing new'}`);
      onClose();
    },
  );

  const choose = async (chosen: File | undefined) => {
    reset();
    if (!chosen) return setFile(null);
    const json = chosen.name.toLowerCase().endsWith('.json');
    const text = await chosen.text();
    setFile({
      text,
      contentType: json ? 'application/json' : 'application/yaml',
      namespaceKey: documentNamespace(text),
      name: chosen.name,
    });
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import</h2>
      <p className="muted">
        A file exported by Vexil or by <code>flipt export</code> (YAML or JSON, versions 1.0 to 1.4). You see what it
        would change before anything is written; the import then happens all at once or not at all.
      </p>
      <div className="field">
        <label htmlFor={`${id}-file`}>Document</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".yml,.yaml,.json,application/json,application/yaml,text/yaml"
          onChange={(e) => choose(e.target.files?.[0])}
        />
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={skipExisting}
          onChange={(e) => {
            setSkipExisting(e.target.checked);
            reset();
          }}
        />
        Leave flags and segments that already exist as they are
      </label>
      <PreviewFooter preview={preview} error={error} onClose={onClose}>
        {preview ? (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => run(false)}>
            {busy ? 'Importing…' : 'Import'}
          </button>
        ) : (
          <button type="button" className="btn btn-primary" disabled={busy || !file} onClick={() => run(true)}>
            {busy ? 'Checking…' : 'Preview'}
          </button>
        )}
      </PreviewFooter>
    </section>
  );
}

/** The namespace's export, with the namespace renamed: the document a copy imports. */
async function copiedDocument(source: string, key: string, name: string): Promise<string> {
  const text = await api.exportNamespace(source, 'json');
  // A JSON export is one document per line; one namespace is one document.
  const line = text.split('\n').find((l) => l.trim().startsWith('{'));
  if (!line) throw new Error(`The export of "${source}" holds no document.`);
  const document = JSON.parse(line) as { namespace?: unknown };
  document.namespace = { key, name };
  return JSON.stringify(document);
}

/** Copies a namespace (flags, segments, rules, rollouts) under a new key, after a preview. */
export function CopyNamespaceForm({ source, onClose }: { source: string; onClose: () => void }) {
  const id = useId();
  const notify = useNotify();
  const [key, setKey] = useState(`${source}-copy`);
  const [name, setName] = useState(`Copy of ${source}`);
  const { preview, error, busy, run, reset } = usePreviewedImport(
    async () => ({
      text: await copiedDocument(source, key.trim(), name.trim() || key.trim()),
      contentType: 'application/json',
      namespaceKey: key.trim(),
    }),
    {},
    () => {
      notify(`Namespace "${source}" copied to "${key.trim()}"`);
      onClose();
    },
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(preview === null);
  };

  return (
    <form className="card form" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h2 id={`${id}-title`}>Copy namespace {source}</h2>
      <div className="field">
        <label htmlFor={`${id}-key`}>
          New key
          <span className="required" aria-hidden="true">
            {' '}
            *
          </span>
        </label>
        <input
          id={`${id}-key`}
          value={key}
          required
          onChange={(e) => {
            setKey(e.target.value);
            reset();
          }}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-name`}>New name</label>
        <input
          id={`${id}-name`}
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            reset();
          }}
        />
      </div>
      <PreviewFooter preview={preview} error={error} onClose={onClose}>
        <button type="submit" className="btn btn-primary" disabled={busy || key.trim() === ''}>
          {preview ? (busy ? 'Copying…' : 'Copy') : busy ? 'Checking…' : 'Preview'}
        </button>
      </PreviewFooter>
    </form>
  );
}
