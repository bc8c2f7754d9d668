// Namespace use cases: create, read, update, delete with Flipt's protections.

import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../domain/errors.js';
import type { Namespace, Page } from '../domain/types.js';
import type { ListQuery } from '../storage/pagination.js';
import type { NamespaceStore } from '../storage/store.js';
import { bumpRevision } from '../storage/transaction.js';
import type { ResourceStates } from './resource-states.js';
import { requireKey, requireMaxLength, requireNonEmpty } from './validation.js';
import { recordedTransaction, type WriteContext } from './write.js';

export interface NamespaceInput {
  key?: string;
  name?: string;
  description?: string;
}

export class NamespaceService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly namespaces: NamespaceStore,
    private readonly states: ResourceStates,
  ) {}

  /** `only`: just these keys (a caller who may read no more); absent: every namespace. */
  list(query: ListQuery, only?: readonly string[]): Promise<Page<Namespace>> {
    return this.namespaces.list(this.ctx.db, query, only);
  }

  get(key: string): Promise<Namespace> {
    return this.namespaces.get(this.ctx.db, key);
  }

  async create(input: NamespaceInput): Promise<Namespace> {
    const key = requireKey('key', input.key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    const ns = await recordedTransaction(this.ctx, async (tx, changes) => {
      const after = await this.namespaces.insert(tx, { key, name, description: input.description ?? '' });
      changes.record({ namespaceKey: key, resourceType: 'namespace', resourceKey: key, action: 'created', after });
      return after;
    });
    this.ctx.changes.publish(key);
    return ns;
  }

  async update(key: string, input: NamespaceInput): Promise<Namespace> {
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    const ns = await recordedTransaction(this.ctx, async (tx, changes) => {
      const before = await this.namespaces.find(tx, key);
      await this.namespaces.update(tx, key, { name, description: input.description ?? '' });
      await bumpRevision(tx, key);
      const after = await this.namespaces.get(tx, key);
      changes.record({
        namespaceKey: key,
        resourceType: 'namespace',
        resourceKey: key,
        action: 'updated',
        before,
        after,
      });
      return after;
    });
    this.ctx.changes.publish(key);
    return ns;
  }

  async delete(key: string, force: boolean): Promise<void> {
    await recordedTransaction(
      this.ctx,
      async (tx, changes) => {
        const ns = await this.namespaces.get(tx, key);
        if (!force && ns.protected) throw new InvalidArgumentError(`namespace "${key}" is protected`);
        if (!force && (await this.namespaces.countFlags(tx, key)) > 0) {
          throw new InvalidArgumentError(`namespace "${key}" cannot be deleted; flags must be deleted first`);
        }
        // What goes with the namespace is recorded too, each object as a delete of its own in the same
        // batch: the audit trail names every flag that went, and a revert can bring all of it back.
        const contents = await this.states.namespaceContents(tx, key);
        for (const segment of contents.segments) {
          changes.record({
            namespaceKey: key,
            resourceType: 'segment',
            resourceKey: segment.key,
            action: 'deleted',
            before: segment,
          });
        }
        for (const flag of contents.flags) {
          changes.record({
            namespaceKey: key,
            resourceType: 'flag',
            resourceKey: flag.key,
            action: 'deleted',
            before: flag,
          });
        }
        await this.namespaces.delete(tx, key);
        changes.record({
          namespaceKey: key,
          resourceType: 'namespace',
          resourceKey: key,
          action: 'deleted',
          before: ns,
        });
      },
      { batch: randomUUID() },
    );
    this.ctx.changes.publish(key);
  }
}
