// A native <dialog> shown modally while `open`: the browser keeps focus inside, Escape cancels, and
// closing returns focus to the control that opened it. jsdom (the unit tests) has no showModal or
// close, so the `open` attribute stands in there.

import { useEffect, useRef } from 'react';

export function useModalDialog(open: boolean, onClose?: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  /** Set while the close event of a closing `open` asked for is still to come. */
  const closingAsked = useRef(false);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    } else if (!open && dialog.open) {
      if (typeof dialog.close === 'function') {
        closingAsked.current = true;
        dialog.close();
      } else dialog.removeAttribute('open');
    }
  }, [open]);

  /**
   * For the element's `onClose`: tells the owner of a closing it did not ask for (Escape, a form of
   * method dialog). The browser fires the close event a task after the closing, and by then the owner
   * may have opened the dialog again (a Ctrl+K right after a choice): that late event is not passed on.
   */
  const onDialogClose = () => {
    if (closingAsked.current) {
      closingAsked.current = false;
      return;
    }
    onClose?.();
  };

  /**
   * Closes through the element, so the browser hands focus back; the element's `close` event then
   * tells the owner (its onClose). Without an open element, calls onClose directly.
   */
  const close = () => {
    const dialog = ref.current;
    if (dialog?.open && typeof dialog.close === 'function') dialog.close();
    else onClose?.();
  };

  return { ref, close, onDialogClose };
}
