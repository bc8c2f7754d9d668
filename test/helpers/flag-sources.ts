// Flag sources (what the engine compiles) for unit tests: every field a test does not set is empty.

import type { FlagSource } from '../../src/evaluation/source.js';

export const T0 = '2024-01-01T00:00:00Z';

/** A flag's source, enabled and with no variants, rules or rollouts unless `fields` says otherwise. */
export function flagSource(key: string, type: FlagSource['type'], fields: Partial<FlagSource> = {}): FlagSource {
  return {
    key,
    name: key,
    description: '',
    enabled: true,
    type,
    createdAt: T0,
    updatedAt: T0,
    variants: [],
    rules: [],
    rollouts: [],
    ...fields,
  };
}
