// The service layer as the API layers see it: one object per resource.

import type { Kysely } from 'kysely';
import type { TokenCache } from '../auth/token-cache.js';
import type { SnapshotCache } from '../cache/snapshot-cache.js';
import type { Database } from '../storage/schema.js';
import { AuthService } from './auth.js';
import { ChangeFeed } from './changes.js';
import { ConstraintService } from './constraints.js';
import { EvaluationService, type EvaluationServiceOptions } from './evaluation.js';
import { FlagService } from './flags.js';
import { NamespaceService } from './namespaces.js';
import { RolloutService } from './rollouts.js';
import { DistributionService, RuleService } from './rules.js';
import { SegmentService } from './segments.js';
import { VariantService } from './variants.js';
import type { WriteContext } from './write.js';

export interface Services {
  changes: ChangeFeed;
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
}

/** What the evaluation service needs from the composition root: the snapshot cache and its limits. */
export interface EvaluationDeps extends EvaluationServiceOptions {
  snapshots: SnapshotCache;
}

export interface ServiceOptions {
  /** Remembers presented tokens (absent: every protected request looks its token up). */
  tokens?: TokenCache;
}

export function createServices(
  db: Kysely<Database>,
  evaluation: EvaluationDeps,
  options: ServiceOptions = {},
): Services {
  const changes = new ChangeFeed();
  const ctx: WriteContext = { db, changes };
  return {
    changes,
    auth: new AuthService(db, options.tokens),
    namespaces: new NamespaceService(ctx),
    flags: new FlagService(ctx),
    variants: new VariantService(ctx),
    rules: new RuleService(ctx),
    distributions: new DistributionService(ctx),
    segments: new SegmentService(ctx),
    constraints: new ConstraintService(ctx),
    rollouts: new RolloutService(ctx),
    evaluation: new EvaluationService(evaluation.snapshots, evaluation),
  };
}
