// Kysely table types: the database as the storage modules see it. Columns are snake_case as in
// Flipt's schema. Timestamps come back as Date (PostgreSQL, MySQL) or ISO text (SQLite); booleans as
// boolean (PostgreSQL) or 0/1 (MySQL, SQLite): rows.ts reads both.

import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date | string, Date, Date>;
type Bool = ColumnType<boolean | number, boolean, boolean>;

export interface NamespacesTable {
  key: string;
  name: string;
  description: string;
  protected: Bool;
  /** Bumped by every write to anything in the namespace, in the same transaction. */
  revision: ColumnType<number | string, number, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  state_modified_at: ColumnType<Date | string | null, Date | null, Date | null>;
}

export interface FlagsTable {
  namespace_key: string;
  key: string;
  name: string;
  description: string;
  enabled: Bool;
  /** 0 variant, 1 boolean. */
  type: number;
  default_variant_id: string | null;
  /** JSON object text, or null when none is stored. */
  metadata: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface VariantsTable {
  id: string;
  namespace_key: string;
  flag_key: string;
  key: string;
  name: string;
  description: string;
  /** Compact JSON text, or null. */
  attachment: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SegmentsTable {
  namespace_key: string;
  key: string;
  name: string;
  description: string;
  match_type: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConstraintsTable {
  id: string;
  namespace_key: string;
  segment_key: string;
  type: number;
  property: string;
  operator: string;
  value: string;
  description: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RulesTable {
  id: string;
  namespace_key: string;
  flag_key: string;
  rank: number;
  segment_operator: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RuleSegmentsTable {
  rule_id: string;
  namespace_key: string;
  segment_key: string;
  /** Keeps the segments in the order they were given. */
  position: number;
}

export interface DistributionsTable {
  id: string;
  rule_id: string;
  variant_id: string;
  rollout: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RolloutsTable {
  id: string;
  namespace_key: string;
  flag_key: string;
  /** 1 segment, 2 threshold. */
  type: number;
  description: string;
  rank: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RolloutThresholdsTable {
  id: string;
  namespace_key: string;
  rollout_id: string;
  percentage: number;
  value: Bool;
}

export interface RolloutSegmentsTable {
  id: string;
  rollout_id: string;
  value: Bool;
  segment_operator: number;
}

export interface RolloutSegmentReferencesTable {
  rollout_segment_id: string;
  namespace_key: string;
  segment_key: string;
  position: number;
}

export interface AuthenticationsTable {
  id: string;
  hashed_client_token: string;
  method: number;
  /** JSON object of string → string. */
  metadata: string;
  expires_at: ColumnType<Date | string | null, Date | null, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** A token's roles as a JSON list of `{role, namespace}`; NULL: made without roles (migration 008). */
  roles: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OperationLockTable {
  operation: string;
  version: number;
  last_acquired_at: ColumnType<Date | string | null, Date | null, Date | null>;
  acquired_until: ColumnType<Date | string | null, Date | null, Date | null>;
}

export interface SeedStateTable {
  /** Which seed: `db.seed` as configured. */
  name: string;
  /** sha256 of the seed's files, as last applied. */
  hash: string;
  applied_at: Timestamp;
}

/** One recorded write (migration 004); JSON columns are text. See domain/changes.ts for their meaning. */
export interface ChangesTable {
  id: ColumnType<number | string, never, never>;
  created_at: Timestamp;
  /** Shared by every change of one import or one revert of several objects; null for a single write. */
  batch: string | null;
  /** null for changes outside any namespace (tokens). */
  namespace_key: string | null;
  resource_type: string;
  resource_key: string;
  /** The flag of a variant, rule or rollout; the segment of a constraint; the rule of a distribution. */
  parent_key: string | null;
  action: string;
  /** JSON ChangeActor. */
  actor: string;
  /** JSON of the resource before the change (null when created) and after it (null when deleted). */
  before_state: string | null;
  after_state: string | null;
  /** The id of the change this one reverted, if it is a revert. */
  reverts: ColumnType<number | string | null, number | null, number | null>;
  /** The namespace's revision after the write (migration 006); null before it, and for tokens. */
  revision: ColumnType<number | string | null, number | null | undefined, never>;
}

/** How far one audit sink has delivered the changes (migration 005). */
export interface AuditDeliveryTable {
  sink: string;
  delivered_through: ColumnType<number | string, number, number>;
  /** JSON [[from, to, firstSeenMs], …]: id ranges below delivered_through still watched for late commits. */
  gaps: string;
  updated_at: Timestamp;
}

/** A sign-in under way (OIDC): consumed once at its callback. */
export interface LoginStatesTable {
  /** SHA-256 of the state, base64url: the state itself is never stored. */
  state_hash: string;
  method: number;
  provider: string;
  nonce: string;
  code_verifier: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/**
 * A role binding stored through the API (migration 009, features/role-bindings): who (a metadata key or
 * an OIDC claim, exactly one set, and a pattern; optionally one sign-in method) gets which role where.
 */
export interface RoleBindingsTable {
  id: string;
  /** Flipt's Method enum number; null: any method. */
  method: ColumnType<number | string | null, number | null, number | null>;
  match_metadata: string | null;
  match_claim: string | null;
  pattern: string;
  role: string;
  /** A namespace key or `*`; no foreign key: a binding may name a namespace before it exists. */
  namespace_key: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface Database {
  namespaces: NamespacesTable;
  flags: FlagsTable;
  variants: VariantsTable;
  segments: SegmentsTable;
  constraints: ConstraintsTable;
  rules: RulesTable;
  rule_segments: RuleSegmentsTable;
  distributions: DistributionsTable;
  rollouts: RolloutsTable;
  rollout_thresholds: RolloutThresholdsTable;
  rollout_segments: RolloutSegmentsTable;
  rollout_segment_references: RolloutSegmentReferencesTable;
  authentications: AuthenticationsTable;
  operation_lock: OperationLockTable;
  seed_state: SeedStateTable;
  changes: ChangesTable;
  audit_delivery: AuditDeliveryTable;
  login_states: LoginStatesTable;
  role_bindings: RoleBindingsTable;
}
