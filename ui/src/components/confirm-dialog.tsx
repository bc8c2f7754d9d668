// A modal confirmation for destructive actions (native <dialog>: focus is trapped, Escape cancels).
// The action's error is shown inside the dialog, next to the button that caused it.

import { type ReactNode, useEffect, useState } from 'react';
import { ErrorNote } from './error-note.js';
import { useModalDialog } from './use-modal-dialog.js';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  /** Extra controls (e.g. a "force" checkbox) rendered above the buttons. */
  extra?: ReactNode;
}

export function ConfirmDialog({ open, title, children, confirmLabel, onConfirm, onClose, extra }: ConfirmDialogProps) {
  const { ref, close } = useModalDialog(open, onClose);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  // Each opening starts without the last attempt's error.
  useEffect(() => {
    if (open) setError(null);
  }, [open]);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="confirm-title" onClose={onClose}>
      <h2 id="confirm-title">{title}</h2>
      <div className="dialog-body">{children}</div>
      {extra}
      <ErrorNote error={error} />
      <div className="actions">
        {/* biome-ignore lint/a11y/noAutofocus: a dialog focuses its safe choice, so Enter never deletes by accident */}
        <button type="button" className="btn" onClick={close} autoFocus>
          Cancel
        </button>
        <button type="button" className="btn btn-danger" onClick={confirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A danger button that asks before it acts. */
export function DeleteButton({
  label,
  title,
  children,
  onConfirm,
  small,
  extra,
  accessibleLabel,
}: {
  label: string;
  title: string;
  children: ReactNode;
  onConfirm: () => Promise<unknown>;
  small?: boolean;
  extra?: ReactNode;
  accessibleLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={`btn btn-danger-outline${small ? ' btn-small' : ''}`}
        onClick={() => setOpen(true)}
        aria-label={accessibleLabel}
      >
        {label}
      </button>
      {/* Mounted only while open, so long lists do not carry one hidden dialog per row. */}
      {open ? (
        <ConfirmDialog
          open
          title={title}
          confirmLabel={label}
          onConfirm={onConfirm}
          onClose={() => setOpen(false)}
          extra={extra}
        >
          {children}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
