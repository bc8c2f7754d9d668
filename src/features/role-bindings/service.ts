// Role bindings as a use case (issue 41): list, read, create and delete, each as the caller may
// (grants.ts). A create or delete is one transaction that also records the change (history and the
// audit sinks read it), and the in-memory copy the resolver reads (stored-rules.ts) is refreshed as soon
// as it has committed, so the next request on this instance already has the new roles; other instances
// learn of it at their next refresh.

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Authentication } from '../../domain/authentication.js';
import { AlreadyExistsError, FailedPreconditionError, NotFoundError } from '../../domain/errors.js';
import { ALL_NAMESPACES } from '../../domain/roles.js';
import type { RecordedChanges } from '../../services/change-recorder.js';
import { recordedTransaction } from '../../services/write.js';
import { writeTime } from '../../storage/rows.js';
import type { Database } from '../../storage/schema.js';
import { bindingInput, bindingToWire, type StoredRoleBinding, sameRule } from './binding.js';
import { administersBindings, checkAdministersBindings, checkBindingGrant } from './grants.js';
import { deleteBinding, findBinding, insertBinding, listBindings } from './store.js';
import type { StoredBindingRules } from './stored-rules.js';

export const ROLES_NOT_CONFIGURED =
  'stored role bindings need authorization.roles in the configuration: without it people keep full access and bindings would grant nothing';

/** The change log's entry of a binding: in its namespace, or outside any for one on `*` (like tokens). */
function changeNamespace(binding: StoredRoleBinding): { namespaceKey?: string } {
  return binding.namespace === ALL_NAMESPACES ? {} : { namespaceKey: binding.namespace };
}

export class RoleBindingService {
  constructor(
    private readonly ctx: { db: Kysely<Database>; recorded?: RecordedChanges },
    private readonly stored: StoredBindingRules,
    /** Whether `authorization.roles` is configured (services.auth.roles): stored bindings apply only then. */
    private readonly rolesConfigured: boolean,
  ) {}

  /** The bindings the caller administers: on namespaces it is admin of; those on `*` to admins on `*`. */
  async list(caller: Authentication | null): Promise<StoredRoleBinding[]> {
    const all = await listBindings(this.ctx.db);
    return all.filter((binding) => administersBindings(caller, binding.namespace));
  }

  async get(caller: Authentication | null, id: string): Promise<StoredRoleBinding> {
    const binding = await findBinding(this.ctx.db, id);
    if (binding === undefined) throw new NotFoundError(`role binding "${id}"`);
    checkAdministersBindings(caller, binding.namespace);
    return binding;
  }

  async create(caller: Authentication | null, raw: unknown): Promise<StoredRoleBinding> {
    if (!this.rolesConfigured) throw new FailedPreconditionError(ROLES_NOT_CONFIGURED);
    const rule = bindingInput(raw);
    checkBindingGrant(caller, rule);
    const now = writeTime();
    const binding: StoredRoleBinding = { id: randomUUID(), ...rule, createdAt: now, updatedAt: now };
    await recordedTransaction(this.ctx, async (tx, changes) => {
      if ((await listBindings(tx)).some((existing) => sameRule(existing, rule))) {
        throw new AlreadyExistsError('an identical role binding exists');
      }
      await insertBinding(tx, binding);
      changes.record({
        ...changeNamespace(binding),
        resourceType: 'role_binding',
        resourceKey: binding.id,
        action: 'created',
        after: bindingToWire(binding),
      });
    });
    await this.stored.refresh();
    return binding;
  }

  async delete(caller: Authentication | null, id: string): Promise<void> {
    await recordedTransaction(this.ctx, async (tx, changes) => {
      const binding = await findBinding(tx, id);
      if (binding === undefined) throw new NotFoundError(`role binding "${id}"`);
      checkAdministersBindings(caller, binding.namespace);
      if (!(await deleteBinding(tx, id))) throw new NotFoundError(`role binding "${id}"`);
      changes.record({
        ...changeNamespace(binding),
        resourceType: 'role_binding',
        resourceKey: binding.id,
        action: 'deleted',
        before: bindingToWire(binding),
      });
    });
    await this.stored.refresh();
  }
}
