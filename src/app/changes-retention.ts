// How long recorded changes are kept (issue 28): `audit.retention`, 90 days when unset, 0 for forever.
// Read through this one lookup so the `audit` config section (its own change) only has to supply it.

import { ms } from '../config/load.js';
import type { Config } from '../config/schema.js';

export const DEFAULT_CHANGES_RETENTION = '2160h';

export function changesRetention(config: Config): number {
  const audit = (config as { audit?: { retention?: unknown } }).audit;
  const value =
    typeof audit?.retention === 'string' && audit.retention !== '' ? audit.retention : DEFAULT_CHANGES_RETENTION;
  return ms(value);
}
