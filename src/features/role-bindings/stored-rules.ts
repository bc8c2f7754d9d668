// The stored bindings as the RoleResolver reads them (auth/roles/resolver.ts `useStored`): an in-memory
// copy of the role_bindings table, so resolving a person's roles reads no database. It is loaded before
// the app takes requests, refreshed by a job on every instance (jobs.ts) and at once after a write made
// here; `generation` moves only when the set changed, so the resolver re-resolves authentications then
// and not on every refresh.

import type { Kysely } from 'kysely';
import type { RoleRule } from '../../auth/roles/identity-rules.js';
import type { StoredRoleRules } from '../../auth/roles/resolver.js';
import type { Database } from '../../storage/schema.js';
import type { StoredRoleBinding } from './binding.js';
import { listBindings } from './store.js';

/** What tells two loads apart: the ids and update times (a binding is never changed in place today). */
function fingerprint(bindings: readonly StoredRoleBinding[]): string {
  return bindings.map((b) => `${b.id}@${b.updatedAt.getTime()}`).join(',');
}

export class StoredBindingRules implements StoredRoleRules {
  #rules: readonly RoleRule[] = [];
  #fingerprint = '';
  #generation = 0;
  /** A refresh under way: callers at the same time share it rather than read the table again each. */
  #loading: Promise<void> | undefined;
  /** Set when a refresh was asked while one ran: that one may have read before the newest write. */
  #again = false;

  constructor(private readonly db: Kysely<Database>) {}

  rules(): readonly RoleRule[] {
    return this.#rules;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Reads the table again; resolves once a read begun after this call has finished. */
  refresh(): Promise<void> {
    if (this.#loading !== undefined) {
      this.#again = true;
      return this.#loading;
    }
    this.#loading = this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #load(): Promise<void> {
    do {
      this.#again = false;
      const bindings = await listBindings(this.db);
      const seen = fingerprint(bindings);
      if (seen !== this.#fingerprint) {
        this.#rules = bindings.map(({ match, role, namespace }) => ({ match, role, namespace }));
        this.#fingerprint = seen;
        this.#generation++;
      }
    } while (this.#again);
  }
}
