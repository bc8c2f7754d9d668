// @vitest-environment jsdom
// A change reads as field-by-field rows: an edit shows only what differs, a rule names its segments
// and its distributions by variant key, a deleted flag lists its variants and rules one line each,
// and the actor and summary say who did what in words.

import '@testing-library/jest-dom/vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeDiff } from './change-diff.js';
import { actorLabel, canRevert, changeSummary } from './describe.js';
import { diffChange } from './diff.js';
import type { Change } from './history-api.js';

afterEach(cleanup);

const stamps = { createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-02T00:00:00Z' };
const later = { createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-03-01T00:00:00Z' };
const variants = [
  { id: 'v1', key: 'blue', name: '', flagKey: 'colour', namespaceKey: 'shop', ...stamps },
  { id: 'v2', key: 'green', name: 'Green', flagKey: 'colour', namespaceKey: 'shop', ...stamps },
];
const rule = (segmentKeys: string[], rollout: number) => ({
  id: 'r1',
  flagKey: 'colour',
  namespaceKey: 'shop',
  segmentKey: segmentKeys.length === 1 ? segmentKeys[0] : '',
  segmentKeys,
  segmentOperator: 'OR_SEGMENT_OPERATOR',
  rank: 1,
  distributions: [{ id: 'd1', ruleId: 'r1', variantId: 'v2', rollout, ...stamps }],
  ...stamps,
});
const flag = (description: string, extra: object = {}) => ({
  key: 'colour',
  name: 'Colour',
  description,
  enabled: true,
  type: 'VARIANT_FLAG_TYPE',
  namespaceKey: 'shop',
  variants,
  ...stamps,
  ...extra,
});

function change(overrides: Partial<Change>): Change {
  return {
    id: 'c1',
    createdAt: '2024-03-01T10:00:00Z',
    namespaceKey: 'shop',
    resourceType: 'flag',
    resourceKey: 'colour',
    action: 'updated',
    actor: { authentication: 'token', name: 'ci-deployer', tokenId: 't1' },
    ...overrides,
  };
}

describe('diffChange', () => {
  it('an edit yields only the fields that differ, timestamps left out', () => {
    expect(diffChange(flag('Old'), { ...flag('New'), ...later })).toEqual([
      { path: ['Description'], before: 'Old', after: 'New' },
    ]);
  });

  it('a rule edit names its segments as a list and its distribution by variant key', () => {
    const rows = diffChange(
      rule(['beta'], 50),
      { ...rule(['beta', 'staff'], 100), ...later },
      {
        variantKeys: new Map([['v2', 'green']]),
      },
    );
    expect(rows).toEqual([
      { path: ['Segment'], before: 'beta', after: '(empty)' },
      { path: ['Segments'], before: 'beta', after: 'beta, staff' },
      { path: ['Distribution to "green"', 'Percentage'], before: '50', after: '100' },
    ]);
  });

  it('a deleted flag lists each variant and rule on one line, without ids', () => {
    const rows = diffChange(flag('Colours', { rules: [rule(['beta'], 100)] }), undefined);
    const byPath = new Map(rows.map((r) => [r.path.join(' › '), r]));
    expect(byPath.get('Variant "green"')?.before).toBe('key: green; name: Green');
    expect(byPath.get('Rule #1')?.before).toBe(
      'segment: beta; segments: beta; segment operator: or; rank: 1; distributions: {variant: green; percentage: 100}',
    );
    expect(rows.every((r) => r.after === undefined)).toBe(true);
    expect(JSON.stringify(rows)).not.toMatch(/"v1"|"r1"|2024-/);
  });

  it('a reorder of equal items is matched by id, not position', () => {
    const [a, b] = variants;
    expect(diffChange({ variants: [a, b] }, { variants: [b, a] })).toEqual([]);
  });
});

describe('labels', () => {
  it.each([
    [{ authentication: 'token', name: 'ci-deployer', tokenId: 't1' }, 'ci-deployer'],
    [{ authentication: 'token', tokenId: 't1' }, 'token t1'],
    [{ authentication: 'none', ip: '127.0.0.1' }, 'anonymous (authentication off)'],
    [{ authentication: 'bootstrap' }, 'bootstrap token'],
    [{ authentication: 'cli' }, 'command line'],
  ])('actor %j reads "%s"', (actor, label) => {
    expect(actorLabel(actor)).toBe(label);
  });

  it.each<[Partial<Change>, string, boolean]>([
    [{}, 'Flag "colour" updated', true],
    [
      { resourceType: 'rule', resourceKey: 'r1', parentKey: 'colour', action: 'deleted', before: rule(['b'], 1) },
      'Rule #1 in flag "colour" deleted',
      true,
    ],
    [
      {
        resourceType: 'constraint',
        resourceKey: 'x1',
        parentKey: 'beta',
        action: 'created',
        after: { id: 'x1', property: 'plan' },
      },
      'Constraint on "plan" in segment "beta" created',
      true,
    ],
    [{ resourceType: 'namespace', resourceKey: 'shop', action: 'created' }, 'Namespace "shop" created', true],
    [{ resourceType: 'token', resourceKey: 't9', namespaceKey: undefined, action: 'deleted' }, 'Token deleted', false],
    [
      { resourceType: 'role_binding', resourceKey: 'b1', action: 'created', after: { id: 'b1', role: 'viewer' } },
      'Role binding giving "viewer" created',
      false,
    ],
  ])('%j reads "%s" (revertible: %s)', (overrides, summary, revertible) => {
    const c = change(overrides);
    expect(changeSummary(c)).toBe(summary);
    expect(canRevert(c)).toBe(revertible);
  });
});

describe('ChangeDiff', () => {
  it('shows a table with Before and After columns for an edit', () => {
    render(<ChangeDiff change={change({ before: flag('Old'), after: flag('New') })} />);
    const row = screen.getByRole('row', { name: /Description/ });
    expect(within(row).getByRole('rowheader')).toHaveTextContent('Description');
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['Old', 'New']);
    expect(screen.getByRole('columnheader', { name: 'Before' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'After' })).toBeInTheDocument();
  });

  it('a created resource has only an After column', () => {
    render(<ChangeDiff change={change({ action: 'created', after: flag('New') })} />);
    expect(screen.queryByRole('columnheader', { name: 'Before' })).toBeNull();
    expect(screen.getByRole('row', { name: /Variant "blue"/ })).toBeInTheDocument();
  });

  it('says so when nothing readable changed, and still offers the raw JSON', () => {
    render(<ChangeDiff change={change({ before: flag('Same'), after: { ...flag('Same'), ...later } })} />);
    expect(screen.getByText(/No field changed/)).toBeInTheDocument();
    expect(screen.getByText('Raw JSON')).toBeInTheDocument();
  });
});

describe('a reorder', () => {
  it('compares the recorded rule lists item by item', () => {
    const one = { ...rule(['beta'], 100), id: 'r1', rank: 1 };
    const two = { ...rule(['staff'], 100), id: 'r2', rank: 2 };
    const rows = diffChange(
      [one, two],
      [
        { ...two, rank: 1 },
        { ...one, rank: 2 },
      ],
      {},
      'rules',
    );
    expect(rows).toEqual([
      { path: ['Rule #2', 'Rank'], before: '1', after: '2' },
      { path: ['Rule #1', 'Rank'], before: '2', after: '1' },
    ]);
    const c = change({
      resourceType: 'rule',
      resourceKey: 'colour',
      parentKey: 'colour',
      before: [one, two],
      after: [],
    });
    expect(changeSummary(c)).toBe('Rule order in flag "colour" updated');
  });
});
