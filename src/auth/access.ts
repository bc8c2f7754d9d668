// What an entry point does, declared on it: every HTTP route (`config.access`) and every gRPC method
// (its table entry's `access`) says which resource it acts on, with which action, and how the namespace
// it addresses is found in its input. Authorization decides from this declaration and the caller's
// authentication alone (never from URL shapes), so roles per namespace can be added in one place, and a
// test can walk both transports' tables: an entry point without a declaration fails it.

/** What an entry point acts on. */
export type AccessResource =
  | 'namespace'
  | 'flag'
  | 'variant'
  | 'segment'
  | 'constraint'
  | 'rule'
  | 'distribution'
  | 'rollout'
  /** Evaluation: native, legacy and OFREP (single and batch). */
  | 'evaluation'
  /** The client SDKs' namespace snapshot and OFREP's provider configuration. */
  | 'snapshot'
  /** Change streams: native SSE and gRPC streaming, OFREP event streams. */
  | 'stream'
  /** Import and export of namespace documents. */
  | 'document'
  /** The change log (history) and its reverts. */
  | 'change'
  /** Tokens and authentications (self, list, create, delete, expire). */
  | 'token'
  /** Role bindings of signed-in identities (issue 41), managed by admins. */
  | 'role-binding'
  /** Sign-in: the method list, login and callback, which come before any credential. */
  | 'sign-in'
  | 'meta'
  /** Probes and service documents: health, metrics, OpenAPI, the dashboard's files, CORS preflights. */
  | 'service';

export type AccessAction =
  | 'read'
  | 'create'
  | 'update'
  | 'delete'
  | 'evaluate'
  | 'watch'
  | 'import'
  | 'export'
  | 'revert';

/**
 * Where the namespace an entry point addresses is found in its input (the call's input as one camelCase
 * object: over HTTP the path parameters over the body over the query; over gRPC the decoded message):
 * - `request`: its `namespaceKey`, empty or absent meaning `default`;
 * - `key`: its `key`, empty or absent meaning `default` (the namespace operations address a namespace by
 *   its own key, as does the client snapshot);
 * - `items`: every `requests[i].namespaceKey` of a batch (and a top-level `namespaceKey`), each empty
 *   meaning `default`;
 * - `binding`: the role binding being made (issue 41): its `namespace`, a key or `*`; absent or empty
 *   meaning `*`, the most a binding can reach, so a malformed one is refused as the widest grant would be;
 * - `filtered`: a read across namespaces whose answer is limited to what the caller may see;
 * - `all`: every namespace at once (an import that drops everything);
 * - `none`: no namespace (probes, meta, sign-in, the caller's own authentication, token management).
 * Path parameters carry these names (`:namespaceKey`, `:key`), so each transport's input is the same
 * object. OFREP names its namespace in a header instead: see `Access.namespaceHeaders`.
 * auth/authorize.ts reads a rule (addressedNamespaces) and decides (authorize).
 */
export type NamespaceRule = 'request' | 'key' | 'items' | 'binding' | 'filtered' | 'all' | 'none';

export interface Access {
  resource: AccessResource;
  action: AccessAction;
  namespace: NamespaceRule;
  /**
   * The call acts on the caller's own authentication and on nothing else (reading oneself: GET
   * /auth/v1/self, GetAuthenticationSelf): any authenticated caller may make it, a namespace-scoped token
   * included, since it reveals only what the caller already holds. Expiring oneself does not carry it:
   * it changes a token, and scoped tokens may not change tokens.
   */
  self?: true;
  /**
   * The call changes the caller's own authentication and nothing else (signing out: expiring oneself).
   * A caller with roles may always make it, whatever its roles; a token made without roles and scoped to
   * a namespace may not, as before roles existed (scoped tokens may not change tokens).
   */
  selfExpire?: true;
  /**
   * Headers (gRPC: metadata keys) that name the namespace, the first non-empty one winning, when the
   * input does not: OFREP's `x-service-namespace`, then Flipt's `x-flipt-namespace`. The transports put
   * it in the input as `namespaceKey`, so the rule (`request`) reads it like any other.
   */
  namespaceHeaders?: readonly string[];
}
