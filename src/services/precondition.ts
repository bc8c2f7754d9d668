// A write's precondition (issue 42, ADR 0035): the client names the namespace revision it read
// (`If-Match` over HTTP, `if-match` metadata over gRPC), and the write is refused when an object it
// touches, or a part of one, was changed by another write after that revision. Objects are told from
// the changes the write itself records, so every write use case gets the check without code of its
// own: a flag counts with all its parts (variants, rules, distributions, rollouts), a rule with its
// distributions, a segment with its constraints, anything else by itself. A create touches nothing
// that existed, so it only conflicts through its namespace. Other objects may have changed.

import { actorLabel, type Change } from '../domain/changes.js';
import { InvalidArgumentError, PreconditionFailedError } from '../domain/errors.js';
import { changedAfter, type NewChange, type TouchedObjects } from '../storage/changes.js';
import { parseRevisionTag } from '../storage/revision-tag.js';
import { readRevisionTag, type Tx } from '../storage/transaction.js';

/** What each namespace's changes touched (storage/changes.ts TouchedObjects). */
function touchedObjects(changes: readonly NewChange[]): Map<string, TouchedObjects> {
  const byNamespace = new Map<string, Map<string, Set<string>>>();
  for (const c of changes) {
    if (c.namespaceKey === undefined) continue;
    let sets = byNamespace.get(c.namespaceKey);
    if (!sets) {
      sets = new Map();
      byNamespace.set(c.namespaceKey, sets);
    }
    // A reorder is recorded on the flag: key and parent are both the flag.
    const order = (c.resourceType === 'rule' || c.resourceType === 'rollout') && c.resourceKey === c.parentKey;
    const group = order
      ? `${c.resourceType}-order`
      : ['namespace', 'flag', 'rule', 'segment'].includes(c.resourceType)
        ? c.resourceType
        : `single:${c.resourceType}`;
    let keys = sets.get(group);
    if (!keys) {
      keys = new Set();
      sets.set(group, keys);
    }
    keys.add(c.resourceKey);
  }
  const result = new Map<string, TouchedObjects>();
  for (const [ns, sets] of byNamespace) {
    const keys = (group: string) => [...(sets.get(group) ?? [])];
    const single = new Map<string, string[]>();
    for (const [group, set] of sets) if (group.startsWith('single:')) single.set(group.slice(7), [...set]);
    result.set(ns, {
      namespace: sets.has('namespace'),
      flags: keys('flag'),
      rules: keys('rule'),
      segments: keys('segment'),
      ruleOrders: keys('rule-order'),
      rolloutOrders: keys('rollout-order'),
      single,
    });
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
