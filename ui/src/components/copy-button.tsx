// Copies a text to the clipboard and says whether it worked (the clipboard needs a secure context
// and permission; when it fails the text is still on screen to select by hand).

import { useState } from 'react';

export function CopyButton({ text, label, small }: { text: string; label: string; small?: boolean }) {
  const [state, setState] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className={`btn${small ? ' btn-small' : ''}`} onClick={copy}>
        {label}
      </button>
      <span role="status" className="muted copy-status">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Could not copy; select the text instead.' : ''}
      </span>
    </>
  );
}
