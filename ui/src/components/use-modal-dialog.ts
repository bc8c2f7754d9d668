// A native <dialog> shown modally while `open`: the browser keeps focus inside, Escape cancels, and
// closing returns focus to the control that opened it. jsdom (the unit tests) has no showModal or
// close, so the `open` attribute stands in there.

import { useEffect, useRef } from 'react';

export function useModalDialog(open: boolean, onClose?: () => void) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    } else if (!open && dialog.open) {
      if (typeof dialog.close === 'function') dialog.close();
      else dialog.removeAttribute('open');
    }
  }, [open]);

  /**
   * Closes through the element, so the browser hands focus back; the element's `close` event then
   * tells the owner (its onClose). Without an open element, calls onClose directly.
   */
  const close = () => {
    const dialog = ref.current;
    if (dialog?.open && typeof dialog.close === 'function') dialog.close();
    else onClose?.();
  };

  return { ref, close };
}
