// Plain-language labels for a change: who made it, what it touched, and whether it can be reverted.

import type { DiffContext } from './diff.js';
import type { Change, ChangeActor } from './history-api.js';

/** The actor as an operator knows it: the token's name (or id), or how the write arrived. */
export function actorLabel(actor: ChangeActor): string {
  switch (actor.authentication) {
    case 'token':
      return actor.name || actor.email || (actor.tokenId ? `token ${actor.tokenId}` : 'a token');
    case 'none':
      return 'anonymous (authentication off)';
    case 'bootstrap':
      return 'bootstrap token';
    case 'cli':
      return 'command line';
    default:
      return actor.name || actor.authentication;
  }
}

const NOUNS: Record<string, string> = {
  namespace: 'Namespace',
  flag: 'Flag',
  variant: 'Variant',
  segment: 'Segment',
  constraint: 'Constraint',
  rule: 'Rule',
  distribution: 'Distribution',
  rollout: 'Rollout',
  token: 'Token',
  role_binding: 'Role binding',
};

export const RESOURCE_TYPES = Object.keys(NOUNS);

export function resourceNoun(type: string): string {
  return NOUNS[type] ?? type;
}

function field(value: unknown, name: string): unknown {
  return value && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

/** The resource's own readable name: a key where it has one, a rank for rules and rollouts. */
export function resourceName(change: Change, ctx: DiffContext = {}): string {
  const state = change.after ?? change.before;
  if (Array.isArray(state)) return 'order';
  const variantId = field(state, 'variantId');
  if (change.resourceType === 'distribution' && typeof variantId === 'string')
    return `to "${ctx.variantKeys?.get(variantId) ?? variantId}"`;
  const key = field(state, 'key');
  if (typeof key === 'string' && key) return `"${key}"`;
  const rank = field(state, 'rank');
  if (typeof rank === 'number') return `#${rank}`;
  if (change.resourceType === 'role_binding') {
    const role = field(state, 'role');
    if (typeof role === 'string') return `giving "${role}"`;
  }
  if (change.resourceType === 'constraint') {
    const property = field(state, 'property');
    if (typeof property === 'string') return `on "${property}"`;
  }
  if (change.resourceType === 'flag' || change.resourceType === 'segment' || change.resourceType === 'namespace')
    return `"${change.resourceKey}"`;
  return '';
}

/** Where a child lives ("in flag x"), so a rule's change reads without knowing its id. */
export function parentLabel(change: Change): string {
  if (!change.parentKey) return '';
  switch (change.resourceType) {
    case 'variant':
    case 'rule':
    case 'rollout':
      return `in flag "${change.parentKey}"`;
    case 'constraint':
      return `in segment "${change.parentKey}"`;
    case 'distribution': {
      const flag = field(change.after ?? change.before, 'flagKey');
      return typeof flag === 'string' ? `in flag "${flag}"` : 'of a rule';
    }
    default:
      return '';
  }
}

/** "Rule #2 in flag "checkout" updated" — the one-line summary of a change. */
export function changeSummary(change: Change, ctx?: DiffContext): string {
  return [resourceNoun(change.resourceType), resourceName(change, ctx), parentLabel(change), change.action]
    .filter(Boolean)
    .join(' ');
}

/** The flag or segment page this change belongs to, when it has one. */
export function changeOwner(change: Change): { kind: 'flag' | 'segment'; key: string } | null {
  switch (change.resourceType) {
    case 'flag':
      return { kind: 'flag', key: change.resourceKey };
    case 'segment':
      return { kind: 'segment', key: change.resourceKey };
    case 'variant':
    case 'rule':
    case 'rollout':
      return change.parentKey ? { kind: 'flag', key: change.parentKey } : null;
    case 'constraint':
      return change.parentKey ? { kind: 'segment', key: change.parentKey } : null;
    case 'distribution': {
      const flag = field(change.after ?? change.before, 'flagKey');
      return typeof flag === 'string' ? { kind: 'flag', key: flag } : null;
    }
    default:
      return null;
  }
}

/**
 * The server refuses token reverts (no secret is kept to give back) and role binding reverts (who may
 * grant is decided when granting); the button is not offered for them.
 */
export function canRevert(change: Change): boolean {
  return change.namespaceKey !== undefined && change.resourceType !== 'token' && change.resourceType !== 'role_binding';
}
