// The storage layer as the services see it: per resource, the operations they need, split by role.
//
// - Reads (the listing read models: what the management API lists and gets, and the existence checks
//   of its use cases) take any executor: the database, or a write's transaction when the read must see
//   that write.
// - Writes take the transaction of the write use case (services/write.ts `runWrite`, which bumps the
//   namespace revision in it), so a write cannot be made outside one. Authentications are the
//   exception: they belong to no namespace, and each of their writes is one statement.
// - What a namespace's snapshot is compiled from is no store here: the snapshot cache's loader
//   (cache/database-loader.ts) reads it through namespace-reader.ts, the reader the export shares.
//
// One implementation of each on Kysely lives in the resource's own file (sqlFlagStore in flags.ts, …);
// services/index.ts hands them to the services.

import type { Kysely } from 'kysely';
import type { Authentication, AuthMethod } from '../domain/authentication.js';
import type { RoleBinding } from '../domain/roles.js';
import type {
  ComparisonType,
  Constraint,
  Distribution,
  Flag,
  FlagType,
  MatchType,
  Namespace,
  Page,
  Rollout,
  RolloutSegment,
  RolloutThreshold,
  Rule,
  Segment,
  SegmentOperator,
  Variant,
} from '../domain/types.js';
import type { ListQuery } from './pagination.js';
import type { Database } from './schema.js';
import type { Tx } from './transaction.js';

/** What a read runs on: the database or a transaction. */
export type Executor = Kysely<Database>;

// ---------------------------------------------------------------------------------------------
// Namespaces

export interface NamespaceCreate {
  key: string;
  name: string;
  description: string;
}

export interface NamespaceUpdate {
  name: string;
  description: string;
}

export interface NamespaceReads {
  find(db: Executor, key: string): Promise<Namespace | undefined>;
  /** NotFound when there is no such namespace. */
  get(db: Executor, key: string): Promise<Namespace>;
  /** `only`: just these keys; absent: every namespace. */
  list(db: Executor, query: ListQuery, only?: readonly string[]): Promise<Page<Namespace>>;
  countFlags(db: Executor, namespaceKey: string): Promise<number>;
}

export interface NamespaceWrites {
  /** A new namespace at revision 1; AlreadyExists for a taken key. */
  insert(tx: Tx, input: NamespaceCreate): Promise<Namespace>;
  /** NotFound when there is no such namespace. */
  update(tx: Tx, key: string, input: NamespaceUpdate): Promise<void>;
  /** Deletes the namespace with everything in it (nothing when it does not exist). */
  delete(tx: Tx, key: string): Promise<void>;
}

export type NamespaceStore = NamespaceReads & NamespaceWrites;

// ---------------------------------------------------------------------------------------------
// Flags

export interface FlagCreate {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  /** Stored only when it has fields. */
  metadata?: Record<string, unknown>;
}

export interface FlagUpdate {
  name: string;
  description: string;
  enabled: boolean;
  /** '' clears the default variant (Flipt always writes the column). */
  defaultVariantId: string;
  /** undefined leaves it as it is; an empty object clears it. */
  metadata?: Record<string, unknown>;
}

export interface FlagReads {
  /** With its variants and default variant; NotFound when there is no such flag. */
  get(db: Executor, namespaceKey: string, key: string): Promise<Flag>;
  /** Creation order, Flipt's paging; an unknown namespace is an empty page. */
  list(db: Executor, namespaceKey: string, query: ListQuery): Promise<Page<Flag>>;
  exists(db: Executor, namespaceKey: string, key: string): Promise<boolean>;
}

export interface FlagWrites {
  /** NotFound for an unknown namespace, AlreadyExists for a taken key. */
  insert(tx: Tx, namespaceKey: string, input: FlagCreate): Promise<Flag>;
  /**
   * NotFound for an unknown flag, InvalidArgument for a default variant not of this flag. Returns the
   * updated_at it wrote.
   */
  update(tx: Tx, namespaceKey: string, key: string, input: FlagUpdate): Promise<Date>;
  /** Deletes the flag with its variants, rules and rollouts (nothing when it does not exist). */
  delete(tx: Tx, namespaceKey: string, key: string): Promise<void>;
}

export type FlagStore = FlagReads & FlagWrites;

// ---------------------------------------------------------------------------------------------
// Variants (read embedded in their flags: FlagReads)

export interface VariantWrite {
  key: string;
  name: string;
  description: string;
  /** Compact JSON text, or '' for none (stored as NULL). */
  attachment: string;
}

export interface VariantWrites {
  /** NotFound for an unknown flag, AlreadyExists for a key taken in the flag. */
  insert(tx: Tx, namespaceKey: string, flagKey: string, input: VariantWrite): Promise<Variant>;
  /** NotFound (naming the new key) unless the variant belongs to this flag. */
  update(tx: Tx, namespaceKey: string, flagKey: string, id: string, input: VariantWrite): Promise<Variant>;
  /** Deletes it with its distributions and clears it as default variant (nothing when unknown). */
  delete(tx: Tx, namespaceKey: string, flagKey: string, id: string): Promise<void>;
}

export type VariantStore = VariantWrites;

// ---------------------------------------------------------------------------------------------
// Segments and their constraints

export interface SegmentFields {
  name: string;
  description: string;
  matchType: MatchType;
}

export interface ConstraintFields {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
}

export interface SegmentReads {
  /** With its constraints; NotFound when there is no such segment. */
  get(db: Executor, namespaceKey: string, key: string): Promise<Segment>;
  /** Creation order, each with its constraints; an unknown namespace is an empty page. */
  list(db: Executor, namespaceKey: string, query: ListQuery): Promise<Page<Segment>>;
  exists(db: Executor, namespaceKey: string, key: string): Promise<boolean>;
  /** The keys among `keys` that name no segment of the namespace, in the order given. */
  missingKeys(db: Executor, namespaceKey: string, keys: string[]): Promise<string[]>;
  findConstraint(db: Executor, namespaceKey: string, segmentKey: string, id: string): Promise<Constraint | undefined>;
}

export interface SegmentWrites {
  /** NotFound for an unknown namespace, AlreadyExists for a taken key. */
  insert(tx: Tx, namespaceKey: string, key: string, fields: SegmentFields): Promise<Segment>;
  /** NotFound when there is no such segment. */
  update(tx: Tx, namespaceKey: string, key: string, fields: SegmentFields): Promise<void>;
  /** Deletes it with its constraints; InvalidArgument ("is in use") while a rule or rollout uses it. */
  delete(tx: Tx, namespaceKey: string, key: string): Promise<void>;
  /** NotFound for an unknown segment. */
  insertConstraint(tx: Tx, namespaceKey: string, segmentKey: string, fields: ConstraintFields): Promise<Constraint>;
  /** NotFound unless the constraint belongs to this segment. */
  updateConstraint(
    tx: Tx,
    namespaceKey: string,
    segmentKey: string,
    id: string,
    fields: ConstraintFields,
  ): Promise<Constraint>;
  /** Nothing when there is no such constraint. */
  deleteConstraint(tx: Tx, namespaceKey: string, segmentKey: string, id: string): Promise<void>;
}

export type SegmentStore = SegmentReads & SegmentWrites;

// ---------------------------------------------------------------------------------------------
// Rules and their distributions

export interface RuleCreate {
  rank: number;
  /** De-duplicated, at least one. */
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  /** The request's single `segmentKey`, which is all Flipt's not-found message names. */
  requestedSegmentKey: string;
}

export interface RuleUpdate {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
}

export interface DistributionWrite {
  variantId: string;
  rollout: number;
}

export interface RuleReads {
  /** By id within the namespace (the flag is not part of the lookup, as in Flipt); NotFound if none. */
  get(db: Executor, namespaceKey: string, id: string): Promise<Rule>;
  /** The flag's rules by rank; an unknown flag or namespace is an empty page. */
  list(db: Executor, namespaceKey: string, flagKey: string, query: ListQuery): Promise<Page<Rule>>;
}

export interface RuleWrites {
  /** NotFound when the flag or a segment does not exist. */
  insert(tx: Tx, namespaceKey: string, flagKey: string, input: RuleCreate): Promise<Rule>;
  /** Replaces segments and operator; the rank stays. */
  update(tx: Tx, namespaceKey: string, flagKey: string, id: string, input: RuleUpdate): Promise<Rule>;
  /** rank = position + 1 for each listed rule of the flag; unlisted ones keep their ranks. */
  order(tx: Tx, namespaceKey: string, flagKey: string, ruleIds: readonly string[]): Promise<void>;
  /** Deletes the rule (nothing when unknown) and renumbers the flag's other rules 1..n. */
  delete(tx: Tx, namespaceKey: string, flagKey: string, id: string): Promise<void>;
  /** NotFound unless the variant, the rule and the flag each exist in the namespace. */
  insertDistribution(
    tx: Tx,
    namespaceKey: string,
    flagKey: string,
    ruleId: string,
    input: DistributionWrite,
  ): Promise<Distribution>;
  updateDistribution(
    tx: Tx,
    namespaceKey: string,
    flagKey: string,
    ruleId: string,
    id: string,
    input: DistributionWrite,
  ): Promise<Distribution>;
  /** Deletes the distribution matching id, rule and variant; nothing when there is none. */
  deleteDistribution(tx: Tx, ruleId: string, id: string, variantId: string): Promise<void>;
}

export type RuleStore = RuleReads & RuleWrites;

// ---------------------------------------------------------------------------------------------
// Rollouts

/** A rollout's rule: exactly one of the two. */
export type RolloutRule =
  | { segment: RolloutSegment; threshold?: undefined }
  | { threshold: RolloutThreshold; segment?: undefined };

export interface NewRollout {
  namespaceKey: string;
  flagKey: string;
  rank: number;
  description: string;
  rule: RolloutRule;
  /** What the NotFound error names when the flag or a segment vanished under us (Flipt's wording). */
  missingReferenceSubject: string;
}

export interface RolloutReads {
  /** By namespace and id (the flag is not part of the lookup, as in Flipt); NotFound if none. */
  get(db: Executor, namespaceKey: string, id: string): Promise<Rollout>;
  /** The flag's rollouts by rank; an unknown flag or namespace is an empty page. */
  list(db: Executor, namespaceKey: string, flagKey: string, query: ListQuery): Promise<Page<Rollout>>;
  rankTaken(db: Executor, namespaceKey: string, flagKey: string, rank: number): Promise<boolean>;
}

export interface RolloutWrites {
  insert(tx: Tx, input: NewRollout): Promise<Rollout>;
  /** Sets description and updated_at; false when no rollout with that id exists under the flag. */
  touch(tx: Tx, namespaceKey: string, flagKey: string, id: string, description: string): Promise<boolean>;
  /** Replaces a segment rollout's value, operator and segments. */
  replaceSegment(
    tx: Tx,
    namespaceKey: string,
    rolloutId: string,
    segment: RolloutSegment,
    missingReferenceSubject: string,
  ): Promise<void>;
  /** Replaces a threshold rollout's percentage and value. */
  replaceThreshold(tx: Tx, namespaceKey: string, rolloutId: string, threshold: RolloutThreshold): Promise<void>;
  /** rank = position + 1 for each listed rollout of the flag; unlisted ones keep their ranks. */
  order(tx: Tx, namespaceKey: string, flagKey: string, ids: string[]): Promise<void>;
  /** Deletes the rollout (nothing when unknown) and renumbers the flag's other rollouts 1..n. */
  delete(tx: Tx, namespaceKey: string, flagKey: string, id: string): Promise<void>;
}

export type RolloutStore = RolloutReads & RolloutWrites;

// ---------------------------------------------------------------------------------------------
// Authentications

export interface NewAuthentication {
  id: string;
  hashedClientToken: string;
  method: AuthMethod;
  metadata: Record<string, string>;
  expiresAt?: Date;
  createdAt: Date;
  /** A token's roles; absent: made without roles. */
  roles?: readonly RoleBinding[];
}

export interface AuthenticationListQuery {
  method?: AuthMethod;
  limit: number;
  offset: number;
}

export interface AuthenticationReads {
  /** The authentication whose token hashes to `hashedClientToken`, expired or not. */
  findByHash(db: Executor, hashedClientToken: string): Promise<Authentication | undefined>;
  /** The authentications, expired or not, of those of the hashes that exist, by hash. */
  findByHashes(db: Executor, hashedClientTokens: readonly string[]): Promise<Map<string, Authentication>>;
  /** NotFound (Flipt's wording) for an unknown id. */
  get(db: Executor, id: string): Promise<Authentication>;
  /** One page in creation order; the next page token is the decimal offset of the next row (Flipt). */
  list(db: Executor, query: AuthenticationListQuery): Promise<{ items: Authentication[]; nextPageToken: string }>;
  count(db: Executor, method: AuthMethod): Promise<number>;
}

export interface AuthenticationWrites {
  /** AlreadyExists when the id or the token hash is taken. */
  insert(db: Executor, input: NewAuthentication): Promise<Authentication>;
  /** Nothing when there is no such authentication. */
  delete(db: Executor, id: string): Promise<void>;
  expire(db: Executor, id: string, expiresAt: Date): Promise<void>;
  /** Deletes the method's authentications that expired before `before`; returns how many. */
  deleteExpired(db: Executor, method: AuthMethod, before: Date): Promise<number>;
}

export type AuthenticationStore = AuthenticationReads & AuthenticationWrites;

// ---------------------------------------------------------------------------------------------
// Operation locks (one instance at a time runs a job or makes a decision)

export interface OperationLockStore {
  /** Creates the operation's row unless it exists; safe to race. */
  ensureRow(db: Executor, operation: string): Promise<void>;
  /** Holds the operation's row lock until `tx` ends; concurrent callers queue behind it. */
  lockRow(tx: Tx, operation: string): Promise<void>;
}
