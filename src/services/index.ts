// The service layer as the API layers see it: one object per resource.

import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { ChangeFeed } from './changes.js';
import { NamespaceService } from './namespaces.js';
import type { WriteContext } from './write.js';

export interface Services {
  changes: ChangeFeed;
  namespaces: NamespaceService;
}

export function createServices(db: Kysely<Database>): Services {
  const changes = new ChangeFeed();
  const ctx: WriteContext = { db, changes };
  return {
    changes,
    namespaces: new NamespaceService(ctx),
  };
}
