// Revert with a confirmation that stays open to show the outcome: the new change that records the
// revert, or the server's reason it could not be done (e.g. the segment an old rule used is gone).
// Native <dialog>: focus is trapped, Escape closes, and focus returns to the Revert button.

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorNote } from '../../components/error-note.js';
import { useNotify } from '../../components/notices.js';
import { useModalDialog } from '../../components/use-modal-dialog.js';
import { ChangeDiff } from './change-diff.js';
import { changeSummary } from './describe.js';
import type { DiffContext } from './diff.js';
import { type Change, revertChange } from './history-api.js';

export function RevertButton({ change, context }: { change: Change; context?: DiffContext }) {
  const [open, setOpen] = useState(false);
  const summary = changeSummary(change, context);
  return (
    <>
      <button type="button" className="btn btn-small" onClick={() => setOpen(true)} aria-label={`Revert: ${summary}`}>
        Revert
      </button>
      {open ? <RevertDialog change={change} context={context} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function RevertDialog({ change, context, onClose }: { change: Change; context?: DiffContext; onClose: () => void }) {
  const { ref, close } = useModalDialog(true, onClose);
  const resultRef = useRef<HTMLHeadingElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<Change | null>(null);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const ns = change.namespaceKey ?? '';

  // The outcome replaces the question; focus follows it so a screen reader announces it.
  useEffect(() => {
    if (result) resultRef.current?.focus();
  }, [result]);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      const recorded = await revertChange(ns, change.id);
      setResult(recorded);
      // A revert can touch the flag, its rules, segments and every history list: refresh them all.
      await queryClient.invalidateQueries();
      notify(`Reverted: ${changeSummary(change, context)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog dialog-wide" aria-labelledby="revert-title" onClose={onClose}>
      <h2 id="revert-title">{result ? 'Reverted' : 'Revert this change?'}</h2>
      {result ? (
        <div className="dialog-body">
          <h3 ref={resultRef} tabIndex={-1} className="revert-result">
            Recorded as a new change: {changeSummary(result, context)}
          </h3>
          <ChangeDiff change={result} context={context} />
        </div>
      ) : (
        <div className="dialog-body">
          <p>
            <strong>{changeSummary(change, context)}</strong>. Reverting restores the state from before it and records
            the revert as a new change, which can itself be reverted.
          </p>
          <ChangeDiff change={change} context={context} />
        </div>
      )}
      <ErrorNote error={error} />
      <div className="actions">
        {/* biome-ignore lint/a11y/noAutofocus: a dialog focuses its safe choice, so Enter never reverts by accident */}
        <button type="button" className="btn" onClick={close} autoFocus>
          {result ? 'Close' : 'Cancel'}
        </button>
        {result ? null : (
          <button type="button" className="btn btn-primary" onClick={confirm} disabled={busy}>
            {busy ? 'Reverting…' : 'Revert'}
          </button>
        )}
      </div>
    </dialog>
  );
}
