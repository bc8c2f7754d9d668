// The service layer as the API layers see it: one object per resource, each given the stores it uses
// (storage/store.ts), here their Kysely implementations.

import type { Kysely } from 'kysely';
import type { TokenCache } from '../auth/token-cache.js';
import type { SnapshotCache } from '../cache/snapshot-cache.js';
import { sqlAuthenticationStore } from '../storage/authentications.js';
import type { DialectName } from '../storage/db.js';
import { sqlDocumentStore } from '../storage/documents.js';
import { sqlFlagStore } from '../storage/flags.js';
import { sqlNamespaceStore } from '../storage/namespaces.js';
import { sqlOperationLockStore } from '../storage/operation-lock.js';
import { sqlRolloutStore } from '../storage/rollouts.js';
import { sqlRuleStore } from '../storage/rules.js';
import type { Database } from '../storage/schema.js';
import { sqlSegmentStore } from '../storage/segments.js';
import { sqlVariantStore } from '../storage/variants.js';
import { AuthService, type SignInMethods } from './auth.js';
import { RecordedChanges } from './change-recorder.js';
import { ChangeFeed } from './changes.js';
import { ConstraintService } from './constraints.js';
import { EvaluationService, type EvaluationServiceOptions } from './evaluation.js';
import { ExplainService } from './evaluation-explain.js';
import { FlagService } from './flags.js';
import { ImportExportService } from './import-export.js';
import { LegacyEvaluationService } from './legacy-evaluation.js';
import { NamespaceService } from './namespaces.js';
import { OfrepService } from './ofrep.js';
import { ResourceStates } from './resource-states.js';
import { RolloutService } from './rollouts.js';
import { DistributionService, RuleService } from './rules.js';
import { SegmentService } from './segments.js';
import { VariantService } from './variants.js';
import type { WriteContext } from './write.js';

export interface Services {
  changes: ChangeFeed;
  /** Told of every change recorded, once committed (the changes-recorded metric, the audit outbox). */
  recorded: RecordedChanges;
  auth: AuthService;
  namespaces: NamespaceService;
  flags: FlagService;
  variants: VariantService;
  rules: RuleService;
  distributions: DistributionService;
  segments: SegmentService;
  constraints: ConstraintService;
  rollouts: RolloutService;
  evaluation: EvaluationService;
  /** `?explain=true` answers, over `evaluation`. */
  explain: ExplainService;
  /** Flipt's deprecated /api/v1/evaluate and batch-evaluate, over `evaluation`. */
  legacyEvaluation: LegacyEvaluationService;
  /** OFREP's entity, flag choice and ETag, over `evaluation`. */
  ofrep: OfrepService;
  /** Flipt's document format: import (one transaction per run), export, seed. */
  documents: ImportExportService;
}

/** What the evaluation service needs from the composition root: the snapshot cache and its limits. */
export interface EvaluationDeps extends EvaluationServiceOptions {
  snapshots: SnapshotCache;
}

export interface ServiceOptions {
  /** Remembers presented tokens (absent: every protected request looks its token up). */
  tokens?: TokenCache;
  /** The sign-in methods besides tokens that are on (JWT, OIDC). */
  methods?: SignInMethods;
  /** The database's dialect: exports read each namespace at its consistent isolation (default: sqlite). */
  dialect?: DialectName;
}

export function createServices(
  db: Kysely<Database>,
  evaluation: EvaluationDeps,
  options: ServiceOptions = {},
): Services {
  const changes = new ChangeFeed();
  const recorded = new RecordedChanges();
  const ctx: WriteContext = { db, changes, recorded };
  const states = new ResourceStates(sqlFlagStore, sqlRuleStore, sqlRolloutStore, sqlSegmentStore, sqlNamespaceStore);
  const evaluationService = new EvaluationService(evaluation.snapshots, evaluation);
  return {
    changes,
    recorded,
    auth: new AuthService(db, sqlAuthenticationStore, sqlOperationLockStore, options.tokens, recorded, options.methods),
    namespaces: new NamespaceService(ctx, sqlNamespaceStore, states),
    flags: new FlagService(ctx, sqlFlagStore, sqlNamespaceStore, states),
    variants: new VariantService(ctx, sqlVariantStore, sqlNamespaceStore, states),
    rules: new RuleService(ctx, sqlRuleStore, sqlNamespaceStore, states),
    distributions: new DistributionService(ctx, sqlRuleStore, sqlNamespaceStore, states),
    segments: new SegmentService(ctx, sqlSegmentStore, sqlNamespaceStore, states),
    constraints: new ConstraintService(ctx, sqlSegmentStore, states),
    rollouts: new RolloutService(ctx, sqlRolloutStore, sqlFlagStore, sqlSegmentStore, sqlNamespaceStore, states),
    evaluation: evaluationService,
    explain: new ExplainService(evaluationService),
    legacyEvaluation: new LegacyEvaluationService(evaluationService),
    ofrep: new OfrepService(evaluationService),
    documents: new ImportExportService(
      ctx,
      sqlDocumentStore(options.dialect ?? 'sqlite'),
      sqlNamespaceStore,
      sqlOperationLockStore,
    ),
  };
}
