// The one configuration schema of Vexil: defaults, validation and (through load.ts) the VEXIL_* env
// mapping all come from it. Keys follow Flipt's config file layout wherever Flipt has the key.

import Type, { type Static } from 'typebox';
import { AUTH_METHODS } from '../domain/authentication.js';
import { ROLES } from '../domain/roles.js';

const Duration = (defaultValue: string, description: string) =>
  Type.String({ default: defaultValue, description, 'x-duration': true });

const Section = <T extends Type.TProperties>(properties: T) =>
  Type.Object(properties, { default: {}, additionalProperties: false });

/** Flipt's log levels, in any case; `panic` (Go's) is logged as fatal. */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'];
const LogLevel = (defaultValue: string) =>
  Type.Union(
    [...LOG_LEVELS, ...LOG_LEVELS.map((l) => l.toUpperCase())].map((l) => Type.Literal(l)),
    { default: defaultValue },
  );

const RoleName = Type.Union(ROLES.map((role) => Type.Literal(role)));
const RoleOrNone = Type.Union([Type.Literal('none'), ...ROLES.map((role) => Type.Literal(role))], {
  default: 'none',
});

/** One `authorization.roles.rules` entry: who (a metadata key or an OIDC claim, and a pattern) gets what. */
export const RoleRuleSchema = Type.Object(
  {
    match: Type.Object(
      {
        method: Type.Optional(Type.Union(AUTH_METHODS.map((method) => Type.Literal(method)))),
        metadata: Type.Optional(Type.String({ minLength: 1 })),
        claim: Type.Optional(Type.String({ minLength: 1 })),
        pattern: Type.String({ minLength: 1 }),
      },
      { additionalProperties: false },
    ),
    role: RoleName,
    namespace: Type.String({ default: '*', minLength: 1 }),
  },
  { additionalProperties: false },
);

/**
 * Flipt's default `cors.allowed_headers`, plus the two OFREP web clients send: X-Service-Namespace
 * (the namespace, interface.md) and If-None-Match (on every bulk re-fetch); and If-Match, the
 * precondition of a management write (ADR 0035).
 */
export const CORS_DEFAULT_HEADERS = [
  'Accept',
  'Authorization',
  'Content-Type',
  'X-CSRF-Token',
  'X-Fern-Language',
  'X-Fern-SDK-Name',
  'X-Fern-SDK-Version',
  'X-Flipt-Namespace',
  'X-Flipt-Accept-Server-Version',
  'X-Service-Namespace',
  'If-None-Match',
  'If-Match',
] as const;

/** One of Flipt's login methods Vexil does not have: its settings are accepted while it is disabled. */
const OtherMethod = () =>
  Type.Optional(Type.Object({ enabled: Type.Boolean({ default: false }) }, { additionalProperties: true }));

export const ConfigSchema = Type.Object(
  {
    version: Type.Optional(Type.String()),
    log: Section({
      level: LogLevel('info'),
      /** Level of @grpc/grpc-js's own messages (Flipt's key); they join the log at that level. */
      grpc_level: LogLevel('error'),
      encoding: Type.Union([Type.Literal('json'), Type.Literal('console')], { default: 'json' }),
      /** Names of the time, level and message fields of a log line (Flipt's keys; pino's names by default). */
      keys: Section({
        time: Type.String({ default: 'time', minLength: 1 }),
        level: Type.String({ default: 'level', minLength: 1 }),
        message: Type.String({ default: 'msg', minLength: 1 }),
      }),
      /** Write logs to this file instead of stdout ('' = stdout). */
      file: Type.String({ default: '' }),
      /** Successful evaluation requests are logged at this level; info would halve throughput. */
      evaluation_level: Type.Union(
        ['trace', 'debug', 'info'].map((l) => Type.Literal(l)),
        { default: 'debug' },
      ),
    }),
    server: Section({
      host: Type.String({ default: '0.0.0.0' }),
      http_port: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
      grpc_port: Type.Integer({ default: 9000, minimum: 0, maximum: 65535 }),
      mode: Type.Union([Type.Literal('all'), Type.Literal('read'), Type.Literal('write')], { default: 'all' }),
      /** Largest request body accepted, in bytes; larger ones get 413. */
      body_limit: Type.Integer({ default: 1024 * 1024, minimum: 1 }),
      shutdown_timeout: Duration('10s', 'how long in-flight requests may drain at shutdown'),
      /** https: HTTP on https_port (not http_port) and gRPC over TLS, with cert_file and cert_key (PEM). */
      protocol: Type.Union([Type.Literal('http'), Type.Literal('https')], { default: 'http' }),
      https_port: Type.Integer({ default: 443, minimum: 0, maximum: 65535 }),
      /** The certificate chain (PEM file). */
      cert_file: Type.String({ default: '' }),
      /** The private key (PEM file). */
      cert_key: Type.String({ default: '' }),
      grpc_conn_max_idle_time: Duration('0', 'a gRPC connection idle this long is closed; 0: never'),
      grpc_conn_max_age: Duration('0', 'a gRPC connection is asked to close at this age; 0: never'),
      grpc_conn_max_age_grace: Duration('0', 'calls may finish this long after max age; 0: no limit'),
    }),
    db: Section({
      url: Type.String({ default: 'file:./data/vexil.db' }),
      // Flipt's alternative to `url`: when any of these is set and `url` is not, load.ts builds the
      // URL from them (protocol, host and name required).
      protocol: Type.String({ default: '' }),
      host: Type.String({ default: '' }),
      port: Type.Integer({ default: 0, minimum: 0, maximum: 65535 }),
      name: Type.String({ default: '' }),
      user: Type.String({ default: '' }),
      password: Type.String({ default: '', 'x-secret': true }),
      /** Accepted for Flipt config files: the PostgreSQL driver never keeps named prepared statements. */
      prepared_statements_enabled: Type.Boolean({ default: true }),
      max_open_conn: Type.Integer({ default: 10, minimum: 1 }),
      max_idle_conn: Type.Integer({ default: 2, minimum: 0 }),
      conn_max_idle_time: Duration('30s', 'idle connections are closed after this'),
      conn_max_lifetime: Duration('0', 'connections are recycled after this; 0 keeps them'),
      connect_timeout: Duration('30s', 'how long start-up retries an unreachable database'),
      /**
       * A Flipt document file, or a folder of them (.yml, .yaml, .json), imported at start with
       * --skip-existing semantics by instances that may write, and again only when its content changes.
       */
      seed: Type.String({ default: '', description: 'document file or folder imported at start; empty: none' }),
    }),
    storage: Section({
      type: Type.Literal('database', { default: 'database' }),
      read_only: Type.Boolean({ default: false }),
    }),
    cache: Section({
      enabled: Type.Boolean({ default: false }),
      backend: Type.Union([Type.Literal('memory'), Type.Literal('redis')], { default: 'memory' }),
      ttl: Duration('60s', 'how long a cached entry lives without being used'),
      /** How often each instance reads the namespaces' revisions to see other instances' writes. */
      poll_interval: Duration('1s', 'revision polling interval'),
      memory: Section({
        eviction_interval: Duration('5m', 'sweep interval for expired entries'),
        /** Flipt's deprecated switch: load.ts turns it into cache.enabled with the memory backend. */
        enabled: Type.Optional(Type.Boolean()),
        /** Flipt's deprecated name of cache.ttl (load.ts moves it there). */
        expiration: Type.Optional(Type.String({ 'x-duration': true })),
      }),
      redis: Section({
        url: Type.String({ default: '' }),
        host: Type.String({ default: 'localhost' }),
        port: Type.Integer({ default: 6379, minimum: 1, maximum: 65535 }),
        db: Type.Integer({ default: 0, minimum: 0 }),
        username: Type.String({ default: '' }),
        password: Type.String({ default: '', 'x-secret': true }),
        require_tls: Type.Boolean({ default: false }),
        insecure_skip_tls: Type.Boolean({ default: false }),
        /** A CA certificate (PEM) to trust for TLS: a file, or the PEM text itself; not both. */
        ca_cert_path: Type.String({ default: '' }),
        ca_cert_bytes: Type.String({ default: '' }),
        mode: Type.Union([Type.Literal('single'), Type.Literal('cluster')], { default: 'single' }),
        prefix: Type.String({ default: 'vexil' }),
        /** Accepted for Flipt config files; ioredis multiplexes one connection (plus one for pub/sub). */
        pool_size: Type.Integer({ default: 0, minimum: 0 }),
        min_idle_conn: Type.Integer({ default: 0, minimum: 0 }),
        conn_max_idle_time: Duration('0', 'accepted for Flipt config files; not used'),
        net_timeout: Duration('0', 'connect and command timeout; 0 keeps the defaults (2s, 500ms)'),
      }),
    }),
    evaluation: Section({
      /** Most items one batch evaluation may hold; more gets 400. */
      batch_limit: Type.Integer({ default: 1000, minimum: 1 }),
    }),
    /** The background jobs (app/jobs): token cleanup, change retention, audit delivery, polls, heartbeats. */
    jobs: Section({
      /**
       * False on an evaluation-only instance: it runs none of the jobs done once across instances under
       * a database lease (cleanups, retention, audit delivery, the seed); other instances run them.
       */
      leased: Type.Boolean({ default: true }),
    }),
    ofrep: Section({
      /** OFREP event streams (push, OpenFeature's ADR 0008) and the native change streams. */
      event_streams: Section({
        /** Off by default: providers stop polling when a stream is advertised, and a buffering proxy can hold it back. */
        enabled: Type.Boolean({ default: false }),
        /** Absolute base URL clients reach this service at (behind a proxy); '' advertises a path only. */
        public_url: Type.String({ default: '' }),
        heartbeat_interval: Duration('15s', 'a comment line is sent on every open stream this often'),
        /** Clients close a stream after this long hidden or inactive (OFREP inactivityDelaySec). */
        inactivity_delay: Duration('120s', 'advertised inactivity delay of OFREP event streams'),
        /** With authentication required: stream tickets are issued per window and accepted until the next one ends. */
        ticket_window: Duration('1h', 'validity window of stream tickets'),
        /** Mixed into every ticket's signing key; set the same value on every instance. */
        ticket_secret: Type.String({ default: '', 'x-secret': true }),
        /** Unsent bytes a stream may hold for a slow client before it is dropped (it reconnects). */
        max_buffered_bytes: Type.Integer({ default: 65536, minimum: 1024 }),
      }),
    }),
    authentication: Section({
      required: Type.Boolean({ default: false }),
      exclude: Section({
        management: Type.Boolean({ default: false }),
        evaluation: Type.Boolean({ default: false }),
        ofrep: Type.Boolean({ default: false }),
        metadata: Type.Boolean({ default: false }),
      }),
      session: Section({
        domain: Type.String({ default: '' }),
        secure: Type.Boolean({ default: false }),
        /** Lifetimes of a signed-in session (OIDC) and of a sign-in under way (its state). */
        token_lifetime: Duration('24h', 'lifetime of a session made by signing in'),
        state_lifetime: Duration('10m', 'how long a sign-in may take, from authorize to callback'),
        /**
         * Flipt's CSRF settings. Cookie-authenticated writes are always checked by origin (api/http/csrf.ts),
         * whether or not `key` is set; `trusted_origins` are the other origins allowed to make them.
         */
        csrf: Section({
          key: Type.String({ default: '', 'x-secret': true }),
          secure: Type.Boolean({ default: true }),
          trusted_origins: Type.Array(Type.String(), { default: [] }),
        }),
      }),
      methods: Section({
        token: Section({
          enabled: Type.Boolean({ default: false }),
          bootstrap: Section({
            token: Type.String({ default: '', 'x-secret': true }),
            expiration: Duration('0', 'lifetime of the bootstrap token; 0 means it never expires'),
            /** Extra metadata on the bootstrap token (keys lowercased, as Flipt); YAML only. */
            metadata: Type.Record(Type.String(), Type.String(), { default: {} }),
          }),
          cleanup: Section({
            interval: Duration('1h', 'how often expired tokens are deleted'),
            grace_period: Duration('30m', 'how long after expiry a token is kept'),
          }),
        }),
        // Flipt's other methods: accepted while disabled, refused when enabled (unsupported.ts).
        /** Flipt's OIDC method: sign-in through OpenID providers (auth/methods/oidc.ts). */
        oidc: Section({
          enabled: Type.Boolean({ default: false }),
          /** Regular expressions; a person's email must match one, at sign-in and on every request. */
          email_matches: Type.Array(Type.String(), { default: [] }),
          /** By name (the name is in the authorize and callback paths). Hidden whole in /meta/config. */
          providers: Type.Record(
            Type.String(),
            Type.Object(
              {
                // (Defaults do not reach into a record's values: absent keys are read as empty.)
                issuer_url: Type.Optional(Type.String()),
                client_id: Type.Optional(Type.String()),
                client_secret: Type.Optional(Type.String()),
                redirect_address: Type.Optional(Type.String()),
                scopes: Type.Optional(Type.Array(Type.String())),
                /** Accepted for Flipt config files: every sign-in uses an S256 PKCE verifier of its own. */
                use_pkce: Type.Optional(Type.Boolean()),
                /** Accepted for Flipt config files, ignored: every sign-in uses a fresh nonce of its own. */
                nonce: Type.Optional(Type.String()),
              },
              { additionalProperties: false },
            ),
            { default: {}, 'x-secret': true },
          ),
          cleanup: Section({
            interval: Duration('1h', 'how often expired sessions are deleted'),
            grace_period: Duration('30m', 'how long after expiry a session is kept'),
          }),
        }),
        /** Flipt's GitHub method: OAuth sign-in with GitHub or GitHub Enterprise (auth/methods/github.ts). */
        github: Section({
          enabled: Type.Boolean({ default: false }),
          client_id: Type.String({ default: '' }),
          client_secret: Type.String({ default: '', 'x-secret': true }),
          redirect_address: Type.String({ default: '' }),
          scopes: Type.Array(Type.String(), { default: [] }),
          server_url: Type.String({ default: '' }),
          api_url: Type.String({ default: '' }),
          allowed_organizations: Type.Array(Type.String(), { default: [] }),
          allowed_teams: Type.Record(Type.String(), Type.Array(Type.String()), { default: {} }),
          cleanup: Section({
            interval: Duration('1h', 'how often expired GitHub sessions are deleted'),
            grace_period: Duration('30m', 'how long after expiry a session is kept'),
          }),
        }),
        /** Flipt's Kubernetes method: service-account tokens verified against the cluster (auth/methods/kubernetes.ts). */
        kubernetes: Section({
          enabled: Type.Boolean({ default: false }),
          discovery_url: Type.String({ default: 'https://kubernetes.default.svc.cluster.local' }),
          ca_path: Type.String({ default: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt' }),
          service_account_token_path: Type.String({
            default: '/var/run/secrets/kubernetes.io/serviceaccount/token',
          }),
          cleanup: Section({
            interval: Duration('1h', 'how often expired Kubernetes authentications are deleted'),
            grace_period: Duration('30m', 'how long after expiry one is kept'),
          }),
        }),
        /** Flipt's JWT method: `Authorization: JWT <token>` verified against jwks_url or public_key_file (auth/methods/jwt.ts). */
        jwt: Section({
          enabled: Type.Boolean({ default: false }),
          jwks_url: Type.String({ default: '' }),
          public_key_file: Type.String({ default: '' }),
          validate_claims: Section({
            issuer: Type.String({ default: '' }),
            subject: Type.String({ default: '' }),
            audiences: Type.Array(Type.String(), { default: [] }),
          }),
          /** Flipt's per-method key; nothing is stored per JWT, so there is nothing to clean up. */
          cleanup: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
        cloud: OtherMethod(),
      }),
    }),
    metrics: Section({
      enabled: Type.Boolean({ default: true }),
      exporter: Type.Literal('prometheus', { default: 'prometheus' }),
      /** Per-flag labels on evaluation metrics; turn off for very large installations. */
      flag_labels: Type.Boolean({ default: true }),
      /** When set, GET /metrics needs `Authorization: Bearer <token>` (its series name flag keys; ADR 0023). */
      token: Type.String({ default: '', 'x-secret': true }),
    }),
    tracing: Section({
      enabled: Type.Boolean({ default: false }),
      exporter: Type.Literal('otlp', { default: 'otlp' }),
      sampling_ratio: Type.Number({ default: 1, minimum: 0, maximum: 1 }),
      /** Flipt's; `tracecontext` continues an incoming traceparent (telemetry/tracing.ts). */
      propagators: Type.Array(Type.Union(['tracecontext', 'baggage', 'none'].map((p) => Type.Literal(p))), {
        default: ['tracecontext', 'baggage'],
      }),
      otlp: Section({
        endpoint: Type.String({ default: 'http://localhost:4318' }),
        headers: Type.Record(Type.String(), Type.String(), { default: {}, 'x-secret': true }),
      }),
    }),
    ui: Section({
      /** false: the dashboard is not served (the API still is). */
      enabled: Type.Boolean({ default: true }),
      default_theme: Type.String({ default: 'system' }),
      topbar: Section({ color: Type.String({ default: '' }), label: Type.String({ default: '' }) }),
    }),
    cors: Section({
      enabled: Type.Boolean({ default: false }),
      /** Flipt accepts one string as well as a list (load.ts splits it). */
      allowed_origins: Type.Array(Type.String(), { default: ['*'] }),
      allowed_headers: Type.Array(Type.String(), { default: [...CORS_DEFAULT_HEADERS] }),
    }),
    // Flipt's audit sinks, fed from the stored changes (features/audit); config/audit.ts checks the rest.
    audit: Section({
      sinks: Section({
        log: Section({
          enabled: Type.Boolean({ default: false }),
          /** One JSON line per event appended here; '' writes them to the log. */
          file: Type.String({ default: '' }),
          encoding: Type.Union([Type.Literal(''), Type.Literal('json'), Type.Literal('console')], { default: '' }),
        }),
        webhook: Section({
          enabled: Type.Boolean({ default: false }),
          url: Type.String({ default: '' }),
          signing_secret: Type.String({ default: '', 'x-secret': true }),
          max_backoff_duration: Duration('15s', 'longest wait between two attempts at one event'),
          templates: Type.Array(
            Type.Object(
              {
                url: Type.String({ minLength: 1 }),
                body: Type.String(),
                headers: Type.Record(Type.String(), Type.String(), { default: {} }),
              },
              { additionalProperties: false },
            ),
            { default: [] },
          ),
        }),
        // Flipt's sinks Vexil does not build: accepted in the file, refused when enabled (config/audit.ts).
        kafka: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        cloud: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      }),
      /** Flipt's `type:action` filters (`flag:*`, `*:deleted`); every event by default. */
      events: Type.Array(Type.String(), { default: ['*:*'] }),
      /** Flipt's batching; validated as Flipt does, but delivery never waits for it. */
      buffer: Section({
        capacity: Type.Integer({ default: 2 }),
        flush_period: Duration('2m', 'accepted for Flipt config files; delivery does not wait for it'),
      }),
      /** How long change rows are kept (the cleanup job deletes older ones). */
      retention: Duration('2160h', 'age after which recorded changes are deleted'),
    }),
    // Flipt sections accepted without effect, or refused where they would matter (unsupported.ts).
    /** Vexil never checks for updates nor sends telemetry: accepted, whatever they say. */
    meta: Section({
      check_for_updates: Type.Boolean({ default: true }),
      telemetry_enabled: Type.Boolean({ default: true }),
      state_directory: Type.String({ default: '' }),
    }),
    /** Vexil serves no profiling endpoints, whatever `profiling.enabled` says. */
    diagnostics: Section({ profiling: Section({ enabled: Type.Boolean({ default: true }) }) }),
    /** Refused when a storage is enabled: Vexil neither sends evaluation counts anywhere nor charts them. */
    analytics: Section({
      storage: Section({
        clickhouse: Section({
          enabled: Type.Boolean({ default: false }),
          url: Type.String({ default: '', 'x-secret': true }),
        }),
        prometheus: Section({
          enabled: Type.Boolean({ default: false }),
          url: Type.String({ default: '' }),
          headers: Type.Record(Type.String(), Type.String(), { default: {}, 'x-secret': true }),
        }),
      }),
      buffer: Section({
        capacity: Type.Optional(Type.Integer()),
        flush_period: Duration('10s', 'accepted for Flipt config files; not used'),
      }),
    }),
    /** OPA policies: refused when required; the policy sources are accepted (and never shown) otherwise. */
    authorization: Section({
      required: Type.Boolean({ default: false }),
      backend: Type.String({ default: '' }),
      local: Type.Optional(Type.Unknown({ 'x-secret': true })),
      object: Type.Optional(Type.Unknown({ 'x-secret': true })),
      bundle: Type.Optional(Type.Unknown({ 'x-secret': true })),
      cloud: Type.Optional(Type.Unknown({ 'x-secret': true })),
      /**
       * Vexil's roles for signed-in people (issue 41, ADR 46): set, every person gets the roles its rules
       * give (the stored bindings added), or `default` when none matches; absent, people may do everything,
       * as before. Tokens carry their own roles whether or not this is set.
       */
      roles: Type.Optional(
        Type.Object(
          {
            default: RoleOrNone,
            rules: Type.Array(RoleRuleSchema, { default: [] }),
          },
          { additionalProperties: false },
        ),
      ),
    }),
    /** Empty in Flipt v1.61; an experiment switched on is refused (unsupported.ts). */
    experimental: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
