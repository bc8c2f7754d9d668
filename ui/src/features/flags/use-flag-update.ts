// Saves a change to a flag while keeping every other field as stored (Flipt's PUT replaces name,
// description, enabled and the default variant, so a partial body would clear them).

import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import * as api from '../../api/api.js';
import { keys } from '../../api/queries.js';
import type { Flag } from '../../api/types.js';

export function useFlagUpdate(ns: string, flagKey: string) {
  const queryClient = useQueryClient();
  return useCallback(
    async (changes: Partial<api.FlagUpdateInput>, options: api.WriteOptions = {}): Promise<Flag> => {
      // The freshest copy: another tab or person may have changed the flag since this page loaded.
      // A form's edits carry their precondition (options.ifMatch), so they never overwrite that change.
      const current = await api.getFlag(ns, flagKey);
      const updated = await api.updateFlag(ns, flagKey, api.flagUpdateFrom(current, changes), options);
      queryClient.setQueryData(keys.flag(ns, flagKey), updated);
      await queryClient.invalidateQueries({ queryKey: keys.flags(ns) });
      return updated;
    },
    [queryClient, ns, flagKey],
  );
}
