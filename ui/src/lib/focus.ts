// Where keyboard focus goes when the page changes under it: a form that refused to submit sends it
// to the first field it blames, a closed inline form returns it to the button that opened it, and
// a new page starts at its heading (otherwise focus falls to <body> and a screen reader is lost).

import { useEffect, useRef } from 'react';

const INVALID = '[aria-invalid="true"], [data-invalid] input, [data-invalid] select';

/** After React has shown the form's errors, focuses the first field marked invalid. */
export function focusFirstInvalid(form: HTMLFormElement | null | undefined): void {
  if (!form) return;
  setTimeout(() => form.querySelector<HTMLElement>(INVALID)?.focus(), 0);
}

/** The submit handler's form, for focusFirstInvalid. */
export function formOf(e: { currentTarget: EventTarget | null }): HTMLFormElement | null {
  return e.currentTarget instanceof HTMLFormElement ? e.currentTarget : null;
}

/**
 * When the inline form named by `open` closes (it goes back to null), focuses the element whose id
 * `idFor(previous)` gives (the button that opened it), once it is back on the page.
 */
export function useFocusWhenClosed(open: string | null, idFor: (closed: string) => string): void {
  const previous = useRef(open);
  useEffect(() => {
    const was = previous.current;
    previous.current = open;
    if (was !== null && open === null) document.getElementById(idFor(was))?.focus();
  });
}

/** Focuses the page's <h1> (made focusable) once it renders after a navigation. */
export function focusPageHeading(): void {
  let tries = 0;
  const attempt = () => {
    // Focus the operator put somewhere meanwhile (or a link that survived the move) stays.
    if (document.activeElement && document.activeElement !== document.body) return;
    const h1 = document.querySelector<HTMLElement>('main h1');
    if (h1) {
      if (!h1.hasAttribute('tabindex')) h1.setAttribute('tabindex', '-1');
      h1.focus({ preventScroll: true });
      return;
    }
    // The page may still be loading its data; give it a moment, then settle for <main>.
    if (++tries < 40) setTimeout(attempt, 50);
    else document.getElementById('main')?.focus({ preventScroll: true });
  };
  setTimeout(attempt, 0);
}
