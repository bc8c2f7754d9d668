// The one place the dashboard talks HTTP: JSON in and out, the bearer token from this browser tab's
// session, Flipt's error body turned into an ApiError, and every 401 reported to whoever listens
// (the login prompt).

import { reportReachable } from './connection.js';
import type { ErrorBody } from './types.js';

const TOKEN_KEY = 'vexil.token';

/** The failure of one API call, carrying Flipt's `{code, message, details}` when the server sent it. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly details: unknown[];

  constructor(status: number, body: Partial<ErrorBody> & { message: string }) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code ?? 0;
    this.details = body.details ?? [];
  }

  /**
   * The request field the server blamed, so a form can show the message beside it: Flipt's
   * `invalid field <name>: …`, or `"x" is not unique` (the key).
   */
  get field(): string | undefined {
    const m2 = /^invalid field ([A-Za-z.]+)/.exec(this.message);
    if (m2) return m2[1];
    const byMessage: [RegExp, string][] = [
      [/ is not unique/, 'key'],
      [/contains invalid characters/, 'key'],
      [/^constraint operator /, 'operator'],
      [/^parsing datetime/, 'value'],
      [/^invalid value provided for property/, 'value'],
      [/^too many values provided/, 'value'],
      [/^property is .* instead of/, 'property'],
    ];
    return byMessage.find(([re]) => re.test(this.message))?.[1];
  }
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Called on every 401 from the API; returns the unsubscribe function. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** Tells the listeners the server refused the session's token (a 401 from outside `request`). */
export function reportUnauthorized(): void {
  for (const listener of unauthorizedListeners) listener();
}

// sessionStorage can be unavailable (privacy modes); the token then lives only in memory.
let memoryToken: string | null = null;

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return memoryToken;
  }
}

const SCOPE_KEY = 'vexil.scope';
let memoryScope: string | null = null;

/** The one namespace the stored token is limited to (from /auth/v1/self), or null for all. */
export function getScope(): string | null {
  try {
    return sessionStorage.getItem(SCOPE_KEY);
  } catch {
    return memoryScope;
  }
}

export function setScope(scope: string | null): void {
  memoryScope = scope;
  try {
    if (scope) sessionStorage.setItem(SCOPE_KEY, scope);
    else sessionStorage.removeItem(SCOPE_KEY);
  } catch {
    // memory only
  }
}

export function setToken(token: string | null): void {
  memoryToken = token;
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // memory only
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not announce a 401 to the login prompt (used to test a token before keeping it). */
  quiet401?: boolean;
  /** A token to use instead of the stored one. */
  token?: string;
  /**
   * The revision the edited object was read at (revisionOf): the server refuses the write with 412
   * when the object changed since (a Vexil extension, ADR 0035).
   */
  ifMatch?: string;
}

/**
 * The revision (X-Vexil-Revision) each object of an answer was read at, so a form can send it back as
 * its write's precondition. Kept beside the objects (a WeakMap), so nothing is added to them.
 */
const readAt = new WeakMap<object, string>();

/** Notes `revision` on `value` and every object inside it. */
export function noteReadAt(value: unknown, revision: string): void {
  if (typeof value !== 'object' || value === null) return;
  readAt.set(value, revision);
  for (const inner of Array.isArray(value) ? value : Object.values(value)) noteReadAt(inner, revision);
}

/** The revision `value` was read at, if an answer named one. */
export function revisionOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? readAt.get(value) : undefined;
}

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function errorFromResponse(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (body && typeof body.message === 'string') return new ApiError(res.status, { ...body, message: body.message });
  } catch {
    // not JSON: fall through
  }
  const message = text.trim().slice(0, 300) || `${res.status} ${res.statusText || 'request failed'}`;
  return new ApiError(res.status, { message });
}

/** A request body sent as it is, with its own content type (documents for import). */
export interface TextBody {
  text: string;
  contentType: string;
}

/** The answer's text, whatever its type; failures as in `request`. */
export async function requestText(
  method: string,
  path: string,
  options: Omit<RequestOptions, 'body'> & { body?: TextBody; accept?: string } = {},
): Promise<string> {
  const headers: Record<string, string> = { Accept: options.accept ?? '*/*' };
  if (options.body !== undefined) headers['Content-Type'] = options.body.contentType;
  const res = await send(method, path, headers, options.body?.text, options);
  return res.text();
}

/**
 * The revisions (X-Vexil-Revision) that management answers named, per namespace, while a change
 * stream waits for its opening message (namespace-changes.ts): what the page's data was read at.
 * Noted only between noteRevisionsOf and takeRevisionsSeen, so nothing piles up otherwise.
 */
const revisionsSeen = new Map<string, Set<string>>();
const NAMESPACE_PATH = /^\/api\/v1\/namespaces\/([^/?]+)/;

function noteRevision(path: string, revision: string | null): void {
  const ns = NAMESPACE_PATH.exec(path)?.[1];
  if (revision === null || ns === undefined) return;
  revisionsSeen.get(decodeURIComponent(ns))?.add(revision);
}

/** Starts noting the revisions answers for `ns` name (afresh). */
export function noteRevisionsOf(ns: string): void {
  revisionsSeen.set(ns, new Set());
}

/** The revisions answers for `ns` named since noteRevisionsOf; noting stops. */
export function takeRevisionsSeen(ns: string): Set<string> {
  const seen = revisionsSeen.get(ns) ?? new Set<string>();
  revisionsSeen.delete(ns);
  return seen;
}

async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  options: Omit<RequestOptions, 'body'>,
): Promise<Response> {
  const token = options.token ?? getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.ifMatch) headers['If-Match'] = `"${options.ifMatch}"`;
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body,
      signal: options.signal,
      credentials: 'same-origin',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    reportReachable(false);
    throw new ApiError(0, { message: 'The server could not be reached. Check your connection and try again.' });
  }
  reportReachable(true);
  if (!res.ok) {
    const error = await errorFromResponse(res);
    if (res.status === 401 && !options.quiet401) reportUnauthorized();
    throw error;
  }
  noteRevision(path, res.headers.get('x-vexil-revision'));
  return res;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const res = await send(method, path, headers, body, options);
  const text = await res.text();
  if (!text) return {} as T;
  let value: T;
  try {
    value = JSON.parse(text) as T;
  } catch {
    throw new ApiError(res.status, { message: 'The server sent a response that is not JSON.' });
  }
  const revision = res.headers.get('x-vexil-revision');
  if (revision) noteReadAt(value, revision);
  return value;
}
