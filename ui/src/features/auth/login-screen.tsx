// Asks for an API token when the server requires authentication. The token stays in this tab's
// sessionStorage only and is sent as `Authorization: Bearer <token>`. On first visit (or after
// signing out) this is the whole page; when a token stops working mid-session it is a modal over the
// page, so nothing the operator was typing is lost and the action can be retried after signing in.

import { type FormEvent, useEffect, useState } from 'react';
import { type AuthMethodInfo, listAuthMethods, startSignIn } from '../../api/api.js';
import { ErrorNote } from '../../components/error-note.js';
import { TextField } from '../../components/field.js';
import { useModalDialog } from '../../components/use-modal-dialog.js';
import { useAuth } from './auth-context.js';

/** The sign-in buttons of the enabled methods that make sessions: each OIDC provider, and GitHub. */
function signInChoices(methods: AuthMethodInfo[]): { label: string; path: string }[] {
  const choices: { label: string; path: string }[] = [];
  for (const m of methods) {
    if (!m.enabled) continue;
    if (m.method === 'METHOD_OIDC') {
      const providers = (m.metadata?.providers ?? {}) as Record<string, { authorize_url?: string }>;
      for (const [name, p] of Object.entries(providers)) {
        if (p.authorize_url) choices.push({ label: `Sign in with ${name}`, path: p.authorize_url });
      }
    } else if (m.method === 'METHOD_GITHUB' && typeof m.metadata?.authorize_url === 'string') {
      choices.push({ label: 'Sign in with GitHub', path: m.metadata.authorize_url });
    }
  }
  return choices;
}

function SignInButtons({ choices }: { choices: { label: string; path: string }[] }) {
  const [error, setError] = useState<unknown>(null);
  if (choices.length === 0) return null;
  const go = async (path: string) => {
    setError(null);
    try {
      const { authorizeUrl } = await startSignIn(path);
      window.location.assign(authorizeUrl);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div className="sign-in-choices">
      {choices.map((c) => (
        <button key={c.path} type="button" className="btn" onClick={() => go(c.path)}>
          {c.label}
        </button>
      ))}
      <ErrorNote error={error} />
      <p className="muted">or</p>
    </div>
  );
}

function LoginForm({ titleId }: { titleId: string }) {
  const { login, reason } = useAuth();
  const [choices, setChoices] = useState<{ label: string; path: string }[]>([]);
  useEffect(() => {
    listAuthMethods()
      .then((answer) => setChoices(signInChoices(answer.methods)))
      .catch(() => {});
  }, []);
  const [token, setTokenText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(token);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="login-form" onSubmit={submit} aria-labelledby={titleId}>
      <p className="brand brand-large">Vexil</p>
      <h1 id={titleId}>{choices.length > 0 ? 'Sign in' : 'Sign in with a token'}</h1>
      {reason ? (
        <p className="warning" role="alert">
          {reason}
        </p>
      ) : null}
      <SignInButtons choices={choices} />
      <p>This server requires authentication. Paste an API token (ask an administrator for one).</p>
      <TextField
        label="API token"
        type="password"
        value={token}
        onChange={setTokenText}
        autoComplete="off"
        autoFocus
        required
        hint="Kept only in this browser tab until you close it or sign out."
      />
      <ErrorNote error={error} />
      <button type="submit" className="btn btn-primary" disabled={busy}>
        {busy ? 'Checking…' : 'Sign in'}
      </button>
    </form>
  );
}

export function LoginScreen() {
  return (
    <main className="login" id="main">
      <div className="card login-card">
        <LoginForm titleId="login-title" />
      </div>
    </main>
  );
}

export function LoginDialog() {
  const { ref } = useModalDialog(true);
  return (
    // Escape does not dismiss it: without a token every call would fail again.
    <dialog
      ref={ref}
      className="dialog login-dialog"
      aria-labelledby="login-dialog-title"
      onCancel={(e) => e.preventDefault()}
    >
      <LoginForm titleId="login-dialog-title" />
    </dialog>
  );
}
