// The change log as a feature slice (issue 28): list changes with filters and paging, read one, revert
// one (service.ts, revert.ts, with the rows written back by restore.ts), and its /api/v1/changes routes
// (routes.ts, schemas.ts). Recording a change on every write is the core's (services/change-recorder.ts,
// storage/changes.ts): every write does it, with or without this feature.

import type { Kysely } from 'kysely';
import type { RouteModule } from '../../api/http/routes/deps.js';
import type { RecordedChanges } from '../../services/change-recorder.js';
import type { ChangeFeed } from '../../services/changes.js';
import { ResourceStates } from '../../services/resource-states.js';
import { sqlFlagStore } from '../../storage/flags.js';
import { sqlNamespaceStore } from '../../storage/namespaces.js';
import { sqlRolloutStore } from '../../storage/rollouts.js';
import { sqlRuleStore } from '../../storage/rules.js';
import type { Database } from '../../storage/schema.js';
import { sqlSegmentStore } from '../../storage/segments.js';
import { sqlVariantStore } from '../../storage/variants.js';
import { changeRoutes } from './routes.js';
import { HistoryService } from './service.js';

export interface History {
  readonly service: HistoryService;
  /** For app/ to register with the core's routes. */
  readonly routes: readonly RouteModule[];
}

/** The history over the database; its writes (reverts) feed the same change feeds as the core's. */
export function createHistory(
  db: Kysely<Database>,
  feeds: { changes: ChangeFeed; recorded: RecordedChanges },
): History {
  const states = new ResourceStates(sqlFlagStore, sqlRuleStore, sqlRolloutStore, sqlSegmentStore, sqlNamespaceStore);
  const service = new HistoryService({ db, changes: feeds.changes, recorded: feeds.recorded }, states, {
    namespaces: sqlNamespaceStore,
    flags: sqlFlagStore,
    variants: sqlVariantStore,
    segments: sqlSegmentStore,
    rules: sqlRuleStore,
    rollouts: sqlRolloutStore,
  });
  return { service, routes: [changeRoutes(service)] };
}
