// A write's precondition (issue 42, ADR 0030): the client names the namespace revision it read
// (`If-Match` over HTTP, `if-match` metadata over gRPC), and the write is refused when an object it
// touches, or a part of one, was changed by another write after that revision. Objects are told from
// the changes the write itself records, so every write use case gets the check without code of its
// own: a flag owns its variants, rules, distributions and rollouts, a segment its constraints; the
// namespace's own settings are the namespace's. Other objects of the namespace may have changed.

import { actorLabel, type Change } from '../domain/changes.js';
import { InvalidArgumentError, PreconditionFailedError } from '../domain/errors.js';
import { changedAfter, type NewChange, type TouchedObjects } from '../storage/changes.js';
import { parseRevisionTag } from '../storage/revision-tag.js';
import { readRevisionTag, type Tx } from '../storage/transaction.js';

/** The owners of what the write's changes touched, per namespace. */
function touchedObjects(changes: readonly NewChange[]): Map<string, TouchedObjects> {
  const byNamespace = new Map<
    string,
    { namespace: boolean; flags: Set<string>; segments: Set<string>; ruleIds: Set<string> }
  >();
  for (const c of changes) {
    if (c.namespaceKey === undefined) continue;
    let objects = byNamespace.get(c.namespaceKey);
    if (!objects) {
      objects = { namespace: false, flags: new Set(), segments: new Set(), ruleIds: new Set() };
      byNamespace.set(c.namespaceKey, objects);
    }
    const parent = c.parentKey ?? '';
    switch (c.resourceType) {
      case 'namespace':
        objects.namespace = true;
        break;
      case 'flag':
        objects.flags.add(c.resourceKey);
        break;
      case 'variant':
      case 'rule':
      case 'rollout':
        objects.flags.add(parent);
        break;
      case 'distribution':
        objects.ruleIds.add(parent);
        break;
      case 'segment':
        objects.segments.add(c.resourceKey);
        break;
      case 'constraint':
        objects.segments.add(parent);
        break;
      default:
        break;
    }
  }
  const result = new Map<string, TouchedObjects>();
  for (const [ns, o] of byNamespace) {
    result.set(ns, { namespace: o.namespace, flags: [...o.flags], segments: [...o.segments], ruleIds: [...o.ruleIds] });
  }
  return result;
}

/** What the refusal says: which object changed, how, by whom and when (the dashboard shows it). */
function conflictMessage(change: Change, tag: string): string {
  const owner =
    change.resourceType === 'flag' || change.resourceType === 'segment' || change.resourceType === 'namespace'
      ? `${change.resourceType} "${change.resourceKey}"`
      : `${change.resourceType} "${change.resourceKey}" of "${change.parentKey ?? ''}"`;
  return `precondition failed: changed after revision "${tag}": ${owner} ${change.action} by ${actorLabel(change.actor)} at ${change.createdAt}`;
}

/**
 * Refuses the write (PreconditionFailedError) when something it touches changed after `ifMatch`.
 * Runs inside the write's transaction, after its revision bump and before its changes are inserted.
 */
export async function checkPrecondition(tx: Tx, pending: readonly NewChange[], ifMatch: string): Promise<void> {
  const read = parseRevisionTag(ifMatch);
  if (!read) {
    throw new InvalidArgumentError(`If-Match must be a revision the server sent in X-Vexil-Revision, not "${ifMatch}"`);
  }
  for (const [ns, objects] of touchedObjects(pending)) {
    const current = await readRevisionTag(tx, ns);
    const now = current === undefined ? undefined : parseRevisionTag(current);
    // Deleted and created again since: everything in it is another object now.
    if (now !== undefined && now.createdAtMs !== read.createdAtMs) {
      throw new PreconditionFailedError(
        `precondition failed: namespace "${ns}" was deleted and created again after revision "${ifMatch}"`,
      );
    }
    const conflict = await changedAfter(tx, ns, read.revision, objects);
    if (conflict) throw new PreconditionFailedError(conflictMessage(conflict, ifMatch));
  }
}
