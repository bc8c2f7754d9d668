// The new token's secret, shown exactly once: the server keeps only its hash.

import { useState } from 'react';

export function TokenSecret({ token, onDone }: { token: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section className="card secret" aria-labelledby="secret-title" role="alert">
      <h2 id="secret-title">Copy your new token now</h2>
      <p>This is the only time it is shown. Store it somewhere safe; if you lose it, create a new one.</p>
      <label className="sr-only" htmlFor="token-secret">
        New token
      </label>
      <input
        id="token-secret"
        className="code secret-value"
        readOnly
        value={token}
        onFocus={(e) => e.target.select()}
        data-testid="token-secret"
      />
      <div className="actions">
        <button type="button" className="btn" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="btn btn-primary" onClick={onDone}>
          I have stored it
        </button>
      </div>
      {copied === 'failed' ? (
        <p className="field-error">The browser did not allow copying; select the text and copy it by hand.</p>
      ) : null}
    </section>
  );
}
