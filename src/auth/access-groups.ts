// The groups of routes that `authentication.exclude` can open, as in Flipt's services: `management`
// (/api/v1/**, the legacy /api/v1/evaluate too), `evaluation` (/evaluate/v1/** and the client
// snapshot), `ofrep` (/ofrep/**); `auth` (the token endpoints), `meta` and `analytics` are always
// authenticated. Which route is in which group is declared by the route's kind (api/http/route-kinds.ts).

import type { Config } from '../config/schema.js';

export type AuthGroup = 'management' | 'evaluation' | 'ofrep' | 'auth' | 'meta' | 'analytics';

/** Whether the config exempts a protected group from authentication. */
export function isExcluded(group: AuthGroup | 'unclassified', exclude: Config['authentication']['exclude']): boolean {
  switch (group) {
    case 'management':
      return exclude.management;
    case 'evaluation':
      return exclude.evaluation;
    case 'ofrep':
      return exclude.ofrep;
    default:
      // /meta, analytics and the token endpoints: always authenticated (exclude.metadata never worked in Flipt).
      return false;
  }
}
