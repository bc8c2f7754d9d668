// Records the changes of one write (issue 28): the use case describes what it changed, and the rows
// are inserted at the end of the write's own transaction, so a rolled-back write records nothing and
// a recorded change always happened. Who made it comes from the write's receipt (write.ts), with the
// role it acted in when it has roles (ADR 48).

import { highestRoleOn } from '../auth/roles/highest-role.js';
import type { ChangeAction, ChangeActor, ChangeResourceType } from '../domain/changes.js';
import type { RoleBinding } from '../domain/roles.js';
import type { NewChange } from '../storage/changes.js';

/** What a use case says about one object it changed. */
export interface ChangeEntry {
  namespaceKey?: string;
  resourceType: ChangeResourceType;
  resourceKey: string;
  parentKey?: string;
  action: ChangeAction;
  /** The object as read through the API before the change; absent for a create. */
  before?: unknown;
  /** The object after the change; absent for a delete. */
  after?: unknown;
}

/** Who a write with no receipt (a service called directly, a test) is recorded as. */
export const UNKNOWN_ACTOR: ChangeActor = { authentication: 'none' };

export interface RecorderOptions {
  actor?: ChangeActor;
  /** The actor's roles, when it has any: each change then names the role it was made in. */
  actorRoles?: readonly RoleBinding[];
  /** Shared by every change of one import or one revert. */
  batch?: string;
  /** The change a revert undoes. */
  reverts?: string;
}

export class ChangeRecorder {
  readonly pending: NewChange[] = [];
  /** The actor with its role, per namespace (an import records many changes in one). */
  readonly #actors = new Map<string | undefined, ChangeActor>();

  constructor(private readonly options: RecorderOptions & { actor: ChangeActor }) {}

  #actorIn(namespaceKey: string | undefined): ChangeActor {
    const roles = this.options.actorRoles;
    if (roles === undefined) return this.options.actor;
    let actor = this.#actors.get(namespaceKey);
    if (actor === undefined) {
      const role = highestRoleOn(roles, namespaceKey);
      actor = role === undefined ? this.options.actor : { ...this.options.actor, role };
      this.#actors.set(namespaceKey, actor);
    }
    return actor;
  }

  /** Serialized at once: later steps of the same write must not alter what was captured. */
  record(entry: ChangeEntry): void {
    const change: NewChange = {
      createdAt: new Date(),
      resourceType: entry.resourceType,
      resourceKey: entry.resourceKey,
      action: entry.action,
      actor: this.#actorIn(entry.namespaceKey),
    };
    if (entry.namespaceKey !== undefined) change.namespaceKey = entry.namespaceKey;
    if (entry.parentKey !== undefined) change.parentKey = entry.parentKey;
    if (entry.before !== undefined) change.beforeJson = JSON.stringify(entry.before);
    if (entry.after !== undefined) change.afterJson = JSON.stringify(entry.after);
    if (this.options.batch !== undefined) change.batch = this.options.batch;
    if (this.options.reverts !== undefined) change.reverts = this.options.reverts;
    this.pending.push(change);
  }
}

export type RecordedListener = (changes: readonly NewChange[]) => void;

/** Tells listeners (metrics, the audit outbox) about changes once their transaction has committed. */
export class RecordedChanges {
  readonly #listeners = new Set<RecordedListener>();

  subscribe(listener: RecordedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(changes: readonly NewChange[]): void {
    if (changes.length === 0) return;
    for (const listener of this.#listeners) listener(changes);
  }
}
