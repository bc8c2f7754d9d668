// @vitest-environment jsdom
// The distribution editor shows one labelled percentage per variant with a live total, and a rule
// can be saved when that total is at most 100 (the rest gets no variant, as in Flipt).

import '@testing-library/jest-dom/vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SegmentSelection } from '../../api/api.js';
import type { Flag, Rule, Segment, Variant } from '../../api/types.js';
import { DistributionEditor, type DistributionValues, distributionStatus } from './distribution-editor.js';
import { RuleForm } from './rule-form.js';
import type { DistributionInput } from './save-rule.js';

afterEach(cleanup);

const stamps = { createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z' };

const variant = (id: string, key: string): Variant => ({
  id,
  key,
  name: '',
  description: '',
  attachment: '',
  flagKey: 'f',
  namespaceKey: 'default',
  ...stamps,
});
const blue = variant('v1', 'blue');
const green = variant('v2', 'green');
const red = variant('v3', 'red');

function Harness({ variants, initial }: { variants: Variant[]; initial: DistributionValues }) {
  const [values, setValues] = useState(initial);
  return <DistributionEditor variants={variants} values={values} onChange={setValues} />;
}

const total = () => screen.getByText(/^Total:/);

describe('DistributionEditor', () => {
  it('has a labelled percentage input per variant and a live total', async () => {
    const user = userEvent.setup();
    render(<Harness variants={[blue, green]} initial={{}} />);
    const a = screen.getByLabelText('Percentage for blue');
    const b = screen.getByLabelText('Percentage for green');
    expect(total()).toHaveTextContent('Total: 0%');
    await user.type(a, '30');
    expect(total()).toHaveTextContent('Total: 30%');
    expect(screen.getByText('The remaining 70% of matching entities get no variant.')).toBeInTheDocument();
    expect(total()).toHaveClass('ok');
    await user.type(b, '70');
    expect(total()).toHaveTextContent('Total: 100%');
    expect(total()).toHaveClass('ok');
    expect(screen.queryByText(/remaining/)).not.toBeInTheDocument();
    await user.type(b, '.5');
    expect(total()).toHaveTextContent('Total: 100.5%');
    expect(total()).toHaveClass('bad');
    expect(screen.getByText('The percentages must not add up to more than 100% (now 100.5%).')).toBeInTheDocument();
  });

  it('splits evenly to exactly 100 in hundredths', async () => {
    const user = userEvent.setup();
    render(<Harness variants={[blue, green, red]} initial={{}} />);
    await user.click(screen.getByRole('button', { name: 'Split evenly' }));
    expect(screen.getByLabelText('Percentage for blue')).toHaveValue('33.34');
    expect(screen.getByLabelText('Percentage for green')).toHaveValue('33.33');
    expect(screen.getByLabelText('Percentage for red')).toHaveValue('33.33');
    expect(total()).toHaveTextContent('Total: 100%');
  });

  it('flags entries that are not percentages', async () => {
    const user = userEvent.setup();
    render(<Harness variants={[blue, green]} initial={{ v1: '50', v2: '50' }} />);
    const b = screen.getByLabelText('Percentage for green');
    await user.clear(b);
    await user.type(b, '5O');
    expect(b).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText(/Each percentage must be a number from 0 to 100/)).toBeInTheDocument();
  });

  it('computes the status without float drift', () => {
    expect(distributionStatus([blue, green, red], { v1: '33.33', v2: '33.33', v3: '33.34' })).toMatchObject({
      valid: true,
      total: 100,
    });
    expect(distributionStatus([blue, green], { v1: '0.1', v2: '99.9' }).valid).toBe(true);
    expect(distributionStatus([blue, green], { v1: '101', v2: '0' }).valid).toBe(false);
    expect(distributionStatus([blue, green], { v1: '60', v2: '40.01' }).valid).toBe(false);
    expect(distributionStatus([blue, green], { v1: '60', v2: '30' })).toMatchObject({ valid: true, total: 90 });
    expect(distributionStatus([blue, green], { v1: '50.123', v2: '49.877' }).valid).toBe(false);
  });
});

describe('RuleForm', () => {
  const flag: Flag = {
    key: 'f',
    name: 'F',
    description: '',
    enabled: true,
    type: 'VARIANT_FLAG_TYPE',
    variants: [blue, green],
    namespaceKey: 'default',
    ...stamps,
  };
  const segments: Segment[] = ['beta', 'staff'].map((key) => ({
    key,
    name: key,
    description: '',
    matchType: 'ALL_MATCH_TYPE',
    constraints: [],
    namespaceKey: 'default',
    ...stamps,
  }));

  function setup(initial?: Rule) {
    const onSave = vi
      .fn<(s: SegmentSelection, d: DistributionInput[], ifMatch: string | undefined) => Promise<unknown>>()
      .mockResolvedValue(undefined);
    render(
      <QueryClientProvider client={new QueryClient()}>
        <RuleForm ns="default" flag={flag} segments={segments} initial={initial} onSave={onSave} onCancel={() => {}} />
      </QueryClientProvider>,
    );
    return { user: userEvent.setup(), onSave };
  }

  it('starts with an even split; an empty save names the missing segment and focuses it', async () => {
    const { user, onSave } = setup();
    const create = screen.getByRole('button', { name: 'Create rule' });
    expect(screen.getByLabelText('Percentage for blue')).toHaveValue('50');
    // Nothing is said before the operator tries to save.
    expect(screen.queryByText('Choose at least one segment.')).not.toBeInTheDocument();
    await user.click(create);
    expect(onSave).not.toHaveBeenCalled();
    expect(await screen.findByText('Choose at least one segment.')).toBeInTheDocument();
    await vi.waitFor(() => expect(screen.getByLabelText(/beta/)).toHaveFocus());
    await user.click(screen.getByLabelText(/beta/));
    expect(screen.queryByText('Choose at least one segment.')).not.toBeInTheDocument();
    await user.clear(screen.getByLabelText('Percentage for green'));
    await user.type(screen.getByLabelText('Percentage for green'), '60');
    await user.click(create);
    expect(onSave).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(screen.getByLabelText('Percentage for blue')).toHaveFocus());
    // Less than 100 % is allowed: the rest gets no variant.
    await user.clear(screen.getByLabelText('Percentage for green'));
    await user.type(screen.getByLabelText('Percentage for green'), '40');
    await user.click(create);
    expect(onSave).toHaveBeenCalledWith(
      { segmentKeys: ['beta'], segmentOperator: 'OR_SEGMENT_OPERATOR' },
      [
        { variantId: 'v1', rollout: 50 },
        { variantId: 'v2', rollout: 40 },
      ],
      undefined,
    );
  });

  it('offers OR/AND once several segments are chosen', async () => {
    const { user, onSave } = setup();
    expect(screen.queryByRole('radiogroup')).not.toBeInTheDocument();
    await user.click(screen.getByLabelText(/beta/));
    await user.click(screen.getByLabelText(/staff/));
    await user.click(screen.getByLabelText('all of them (AND)'));
    await user.click(screen.getByRole('button', { name: 'Create rule' }));
    expect(onSave).toHaveBeenCalledWith(
      { segmentKeys: ['beta', 'staff'], segmentOperator: 'AND_SEGMENT_OPERATOR' },
      expect.any(Array),
      undefined,
    );
  });

  it('opens an existing rule with its segments and percentages', () => {
    setup({
      id: 'r1',
      flagKey: 'f',
      namespaceKey: 'default',
      rank: 1,
      segmentKey: 'staff',
      segmentKeys: [],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
      distributions: [{ id: 'd1', ruleId: 'r1', variantId: 'v2', rollout: 100, ...stamps }],
      ...stamps,
    });
    expect(screen.getByLabelText(/staff/)).toBeChecked();
    expect(screen.getByLabelText('Percentage for blue')).toHaveValue('0');
    expect(screen.getByLabelText('Percentage for green')).toHaveValue('100');
    expect(screen.getByRole('button', { name: 'Save rule' })).toBeEnabled();
  });
});
