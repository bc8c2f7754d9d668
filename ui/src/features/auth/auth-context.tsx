// Whether the server wants a token, and the token of this browser tab. The server says so in
// GET /meta/info (authentication.required), or by answering 401; either way the login prompt appears,
// and a 401 later (token deleted or expired) brings it back.

import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { expireSelf, getMetaInfo, getSelf } from '../../api/api.js';
import { ApiError, getScope, getToken, onUnauthorized, setScope, setToken } from '../../api/client.js';
import type { Authentication } from '../../api/types.js';
import { type Access, accessOf } from '../../lib/permissions.js';

const SCOPE_METADATA = 'io.flipt.auth.token.namespace';

/** The namespace a token is limited to, as the server reports it for the token itself. */
function scopeOf(self: Authentication | undefined): string | null {
  return self?.metadata?.[SCOPE_METADATA] || null;
}

export interface AuthState {
  /** undefined until /meta/info has answered. */
  required: boolean | undefined;
  needLogin: boolean;
  /** Why the prompt is shown again (a rejected or expired token). */
  reason?: string;
  hasToken: boolean;
  /**
   * The one namespace the token may use (a namespace-scoped token), else undefined. Such a token
   * cannot list namespaces or manage tokens, so the dashboard pins itself to that namespace.
   */
  scope?: string;
  /** The person signed in through a sign-in method (OIDC, GitHub): their session is a cookie. */
  person?: Person;
  /** Who the server says the caller is (GET /auth/v1/self); null: nobody (not required, or not signed in). */
  self?: Authentication | null;
  /** What the caller may do (lib/permissions.ts); undefined until the server has said who it is. */
  access?: Access;
  login(token: string): Promise<void>;
  logout(): void;
}

export interface Person {
  name?: string;
  email?: string;
  picture?: string;
  method: string;
}

/** The person of a sign-in session (Flipt's `io.flipt.auth.*` keys), else undefined (a token). */
function personOf(self: Authentication | undefined): Person | undefined {
  if (!self || (self.method !== 'METHOD_OIDC' && self.method !== 'METHOD_GITHUB')) return undefined;
  const m = self.metadata ?? {};
  return {
    method: self.method,
    ...(m['io.flipt.auth.name'] ? { name: m['io.flipt.auth.name'] } : {}),
    ...(m['io.flipt.auth.email'] ? { email: m['io.flipt.auth.email'] } : {}),
    ...(m['io.flipt.auth.picture'] ? { picture: m['io.flipt.auth.picture'] } : {}),
  };
}

/** Why a sign-in came back to the dashboard unfinished (the callback's `?signin=`), in plain words. */
const SIGN_IN_PROBLEMS: Record<string, string> = {
  expired: 'The sign-in took too long or was already used. Please sign in again.',
  refused: 'The sign-in was refused. Your account may not be allowed here; ask an administrator.',
};

function signInProblem(): string | undefined {
  const code = new URLSearchParams(window.location.search).get('signin');
  return code ? SIGN_IN_PROBLEMS[code] : undefined;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [required, setRequired] = useState<boolean | undefined>(undefined);
  const [needLogin, setNeedLogin] = useState(false);
  const [reason, setReason] = useState<string | undefined>(signInProblem);
  const [person, setPerson] = useState<Person | undefined>();
  const [hasToken, setHasToken] = useState(() => Boolean(getToken()));
  const [scope, setScopeState] = useState<string | undefined>(() => getScope() ?? undefined);
  const [self, setSelf] = useState<Authentication | null | undefined>(undefined);

  // A token kept from before a reload: ask again which namespace it is limited to (it may have
  // been signed in before the dashboard knew about scopes).
  useEffect(() => {
    if (!getToken()) {
      // No token in this tab: perhaps a session cookie from signing in (OIDC, GitHub).
      getSelf()
        .then((found) => {
          setPerson(personOf(found));
          setSelf(found);
        })
        .catch(() => setSelf(null));
      return;
    }
    getSelf()
      .then((found) => {
        const s = scopeOf(found);
        setScope(s);
        setScopeState(s ?? undefined);
        setSelf(found);
      })
      .catch(() => setSelf(null));
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    getMetaInfo(controller.signal)
      .then((info) => setRequired(Boolean(info.authentication?.required)))
      .catch((err: unknown) => {
        if ((err as Error).name === 'AbortError') return;
        if (err instanceof ApiError && err.status === 401) {
          setRequired(true);
          setNeedLogin(true);
          if (getToken()) setReason('Your token was not accepted. It may have expired or been deleted.');
        } else {
          // Without /meta/info we cannot know in advance; a 401 from any call will still ask for a token.
          setRequired(false);
        }
      });
    return () => controller.abort();
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => {
        setRequired(true);
        setNeedLogin(true);
        // Without a token, a 401 says nothing new: keep a sign-in's reason (`?signin=refused`), which
        // the first page's own 401s would otherwise wipe before anyone reads it.
        if (getToken()) setReason('Your token was not accepted. It may have expired or been deleted.');
      }),
    [],
  );

  const login = useCallback(
    async (token: string) => {
      const trimmed = token.trim();
      if (!trimmed) throw new ApiError(0, { message: 'Enter a token.' });
      let found: Authentication | undefined;
      try {
        found = await getSelf(trimmed);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          throw new ApiError(401, {
            code: 16,
            message: 'This token was not accepted. Check that it is complete and has not expired.',
          });
        }
        // Any other answer (e.g. the endpoint is not there) does not prove the token wrong; the next
        // API call will tell.
        if (!(err instanceof ApiError) || err.status === 0) throw err;
      }
      setToken(trimmed);
      setSelf(found ?? null);
      const s = scopeOf(found);
      setScope(s);
      setScopeState(s ?? undefined);
      setHasToken(true);
      setNeedLogin(false);
      setReason(undefined);
      await queryClient.invalidateQueries();
    },
    [queryClient],
  );

  const logout = useCallback(() => {
    if (person) {
      // The session ends on the server, which also clears its cookie.
      expireSelf().catch(() => {});
      setPerson(undefined);
    }
    setSelf(null);
    setToken(null);
    setScope(null);
    setScopeState(undefined);
    setHasToken(false);
    queryClient.clear();
    if (required) {
      setReason(undefined);
      setNeedLogin(true);
    }
  }, [queryClient, required, person]);

  // Unknown until the server answers who the caller is; nobody known then means no limits to mirror
  // (authentication not required), or the sign-in prompt is up anyway.
  const access = useMemo(() => (self === undefined ? undefined : accessOf(self)), [self]);
  const value = useMemo<AuthState>(
    () => ({
      required,
      needLogin,
      reason,
      hasToken,
      scope,
      ...(person ? { person } : {}),
      ...(self !== undefined ? { self } : {}),
      ...(access ? { access } : {}),
      login,
      logout,
    }),
    [required, needLogin, reason, hasToken, scope, person, self, access, login, logout],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}
