// The stored bindings' refresh for the jobs room (app/jobs/list.ts): every instance keeps its own copy
// (stored-rules.ts), so every instance reads the table again, as often as it polls revisions; a write
// made on this instance refreshes its copy at once without waiting for the job.

import type { Job } from '../../services/job.js';
import type { StoredBindingRules } from './stored-rules.js';

/**
 * Without revision polling (`cache.poll_interval` 0) nothing else would carry another instance's
 * binding to this one, so the copy is then read again on this interval.
 */
export const UNPOLLED_REFRESH_MS = 10_000;

export function roleBindingJobs(stored: StoredBindingRules | undefined, pollMs: number): Job[] {
  if (stored === undefined) return [];
  return [
    {
      name: 'role_bindings_refresh',
      scope: 'every instance',
      intervalMs: pollMs > 0 ? pollMs : UNPOLLED_REFRESH_MS,
      messages: {
        failing: 'role bindings refresh failed; the bindings last read stay in force',
        recovered: 'role bindings refresh recovered',
      },
      run: () => stored.refresh(),
    },
  ];
}
