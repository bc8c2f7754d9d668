// Namespace use cases: create, read, update, delete with Flipt's protections.

import { InvalidArgumentError } from '../domain/errors.js';
import type { Namespace, Page } from '../domain/types.js';
import * as store from '../storage/namespaces.js';
import type { ListQuery } from '../storage/pagination.js';
import { bumpRevision, inTransaction } from '../storage/transaction.js';
import { requireKey, requireMaxLength, requireNonEmpty } from './validation.js';
import type { WriteContext } from './write.js';

export interface NamespaceInput {
  key?: string;
  name?: string;
  description?: string;
}

export class NamespaceService {
  constructor(private readonly ctx: WriteContext) {}

  list(query: ListQuery): Promise<Page<Namespace>> {
    return store.listNamespaces(this.ctx.db, query);
  }

  get(key: string): Promise<Namespace> {
    return store.getNamespace(this.ctx.db, key);
  }

  async create(input: NamespaceInput): Promise<Namespace> {
    const key = requireKey('key', input.key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    const ns = await inTransaction(this.ctx.db, (tx) =>
      store.insertNamespace(tx, { key, name, description: input.description ?? '' }),
    );
    this.ctx.changes.publish(key);
    return ns;
  }

  async update(key: string, input: NamespaceInput): Promise<Namespace> {
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    const ns = await inTransaction(this.ctx.db, async (tx) => {
      await store.updateNamespace(tx, key, { name, description: input.description ?? '' });
      await bumpRevision(tx, key);
      return store.getNamespace(tx, key);
    });
    this.ctx.changes.publish(key);
    return ns;
  }

  async delete(key: string, force: boolean): Promise<void> {
    await inTransaction(this.ctx.db, async (tx) => {
      const ns = await store.getNamespace(tx, key);
      if (!force && ns.protected) throw new InvalidArgumentError(`namespace "${key}" is protected`);
      if (!force && (await store.countFlags(tx, key)) > 0) {
        throw new InvalidArgumentError(`namespace "${key}" cannot be deleted; flags must be deleted first`);
      }
      await store.deleteNamespace(tx, key);
    });
    this.ctx.changes.publish(key);
  }
}
