// @vitest-environment jsdom
// The constraint editor offers only the operators the server accepts per type, hides the value for
// no-value operators, takes isoneof values as a list, datetimes through pickers, and shows a server
// error beside the field it is about.

import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConstraintInput } from '../../api/api.js';
import { ApiError } from '../../api/client.js';
import type { Constraint } from '../../api/types.js';
import { ConstraintEditor } from './constraint-editor.js';

afterEach(cleanup);

function setup(
  initial?: Constraint,
  onSave = vi.fn<(input: ConstraintInput) => Promise<unknown>>().mockResolvedValue(undefined),
) {
  const user = userEvent.setup();
  render(<ConstraintEditor initial={initial} onSave={onSave} onCancel={() => {}} />);
  return { user, onSave };
}

const operatorValues = () =>
  within(screen.getByLabelText('Operator'))
    .getAllByRole('option')
    .map((o) => (o as HTMLOptionElement).value);

const save = () => screen.getByRole('button', { name: /add constraint|save constraint/i });

describe('ConstraintEditor', () => {
  it('offers exactly the operators valid for each type (behavior.md §2.1)', async () => {
    const { user } = setup();
    expect(operatorValues()).toEqual([
      'eq',
      'neq',
      'empty',
      'notempty',
      'prefix',
      'suffix',
      'isoneof',
      'isnotoneof',
      'contains',
      'notcontains',
    ]);
    await user.selectOptions(screen.getByLabelText('Type'), 'NUMBER_COMPARISON_TYPE');
    expect(operatorValues()).toEqual([
      'eq',
      'neq',
      'lt',
      'lte',
      'gt',
      'gte',
      'present',
      'notpresent',
      'isoneof',
      'isnotoneof',
    ]);
    await user.selectOptions(screen.getByLabelText('Type'), 'BOOLEAN_COMPARISON_TYPE');
    expect(operatorValues()).toEqual(['true', 'false', 'present', 'notpresent']);
    await user.selectOptions(screen.getByLabelText('Type'), 'DATETIME_COMPARISON_TYPE');
    expect(operatorValues()).toEqual(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent']);
    await user.selectOptions(screen.getByLabelText('Type'), 'ENTITY_ID_COMPARISON_TYPE');
    expect(operatorValues()).toEqual(['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains']);
  });

  it('keeps the operator when the new type allows it and falls back to the first one otherwise', async () => {
    const { user } = setup();
    await user.selectOptions(screen.getByLabelText('Operator'), 'neq');
    await user.selectOptions(screen.getByLabelText('Type'), 'NUMBER_COMPARISON_TYPE');
    expect(screen.getByLabelText('Operator')).toHaveValue('neq');
    await user.selectOptions(screen.getByLabelText('Type'), 'BOOLEAN_COMPARISON_TYPE');
    expect(screen.getByLabelText('Operator')).toHaveValue('true');
  });

  it('fixes the property to entityId for entity id constraints', async () => {
    const { user, onSave } = setup();
    await user.selectOptions(screen.getByLabelText('Type'), 'ENTITY_ID_COMPARISON_TYPE');
    const property = screen.getByLabelText(/Property/);
    expect(property).toHaveValue('entityId');
    expect(property).toHaveAttribute('readonly');
    await user.type(screen.getByLabelText('Value'), 'user-1');
    await user.click(save());
    expect(onSave).toHaveBeenCalledWith({
      type: 'ENTITY_ID_COMPARISON_TYPE',
      property: 'entityId',
      operator: 'eq',
      value: 'user-1',
      description: '',
    });
  });

  it('hides the value for operators that compare nothing and sends an empty value', async () => {
    const { user, onSave } = setup();
    expect(screen.getByLabelText('Value')).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Operator'), 'notempty');
    expect(screen.queryByLabelText('Value')).not.toBeInTheDocument();
    expect(screen.getByText('This operator needs no value.')).toBeInTheDocument();
    await user.type(screen.getByLabelText(/Property/), 'email');
    await user.click(save());
    expect(onSave).toHaveBeenCalledWith(
      expect.objectContaining({ property: 'email', operator: 'notempty', value: '' }),
    );

    await user.selectOptions(screen.getByLabelText('Type'), 'BOOLEAN_COMPARISON_TYPE');
    expect(screen.queryByLabelText('Value')).not.toBeInTheDocument();
  });

  it('takes isoneof values as a list and saves them as a JSON array', async () => {
    const { user, onSave } = setup();
    await user.type(screen.getByLabelText(/Property/), 'plan');
    await user.selectOptions(screen.getByLabelText('Operator'), 'isoneof');
    expect(screen.queryByLabelText('Value')).not.toBeInTheDocument();
    const input = screen.getByLabelText('Add a value');
    await user.type(input, 'gold{Enter}');
    await user.type(input, 'silver');
    await user.click(screen.getByRole('button', { name: 'Add value' }));
    await user.type(input, 'gold{Enter}');
    const chips = screen.getByRole('list', { name: /Values: 2 entered/ });
    expect(
      within(chips)
        .getAllByRole('listitem')
        .map((li) => li.textContent?.replace('×', '')),
    ).toEqual(['gold', 'silver']);
    await user.click(screen.getByRole('button', { name: 'Remove gold' }));
    await user.type(input, 'bronze{Enter}');
    await user.click(save());
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ operator: 'isoneof', value: '["silver","bronze"]' }));
  });

  it('turns a pasted comma-separated list into entries, and keeps number lists numeric', async () => {
    const { user, onSave } = setup();
    await user.selectOptions(screen.getByLabelText('Type'), 'NUMBER_COMPARISON_TYPE');
    await user.type(screen.getByLabelText(/Property/), 'age');
    await user.selectOptions(screen.getByLabelText('Operator'), 'isnotoneof');
    const input = screen.getByLabelText('Add a value');
    await user.click(input);
    await user.paste('18, 21,30');
    await user.type(input, 'abc{Enter}');
    expect(screen.getByText('"abc" is not a number.')).toBeInTheDocument();
    await user.click(save());
    expect(onSave).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'NUMBER_COMPARISON_TYPE', operator: 'isnotoneof', value: '[18,21,30]' }),
    );
  });

  it('refuses to save an empty list or a missing property', async () => {
    const { user, onSave } = setup();
    await user.selectOptions(screen.getByLabelText('Operator'), 'isoneof');
    await user.click(save());
    expect(screen.getByText('Add at least one value.')).toBeInTheDocument();
    expect(screen.getByLabelText(/Property/)).toHaveAttribute('aria-invalid', 'true');
    expect(onSave).not.toHaveBeenCalled();
  });

  it('asks for a number for numeric comparisons', async () => {
    const { user, onSave } = setup();
    await user.selectOptions(screen.getByLabelText('Type'), 'NUMBER_COMPARISON_TYPE');
    await user.type(screen.getByLabelText(/Property/), 'age');
    await user.selectOptions(screen.getByLabelText('Operator'), 'gte');
    await user.type(screen.getByLabelText('Value'), 'eighteen');
    await user.click(save());
    expect(screen.getByText('Enter a number, e.g. 42 or 3.5.')).toBeInTheDocument();
    expect(onSave).not.toHaveBeenCalled();
    await user.clear(screen.getByLabelText('Value'));
    await user.type(screen.getByLabelText('Value'), '18');
    await user.click(save());
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ operator: 'gte', value: '18' }));
  });

  it('takes datetimes from a picker in local time and saves them in UTC', async () => {
    const { user, onSave } = setup();
    await user.selectOptions(screen.getByLabelText('Type'), 'DATETIME_COMPARISON_TYPE');
    await user.type(screen.getByLabelText(/Property/), 'signup');
    await user.selectOptions(screen.getByLabelText('Operator'), 'gt');
    const picker = screen.getByLabelText(/Date and time \(your time/);
    expect(picker).toHaveAttribute('type', 'datetime-local');
    fireEvent.change(picker, { target: { value: '2024-05-01T10:30:00' } });
    const utc = new Date('2024-05-01T10:30:00').toISOString().replace('.000Z', 'Z');
    expect(screen.getByText(`Saved as ${utc} (UTC)`)).toBeInTheDocument();
    await user.click(save());
    expect(onSave).toHaveBeenLastCalledWith(
      expect.objectContaining({ type: 'DATETIME_COMPARISON_TYPE', operator: 'gt', value: utc }),
    );

    await user.click(screen.getByLabelText('Date only (midnight UTC)'));
    const date = screen.getByLabelText('Date');
    expect(date).toHaveAttribute('type', 'date');
    fireEvent.change(date, { target: { value: '2024-06-30' } });
    await user.click(save());
    expect(onSave).toHaveBeenLastCalledWith(expect.objectContaining({ value: '2024-06-30' }));
  });

  it('opens an existing constraint with its values in the right controls', () => {
    const base = {
      id: 'c1',
      segmentKey: 's',
      namespaceKey: 'default',
      description: 'note',
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: '2024-01-01T00:00:00Z',
    };
    setup({
      ...base,
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'isoneof',
      value: '["gold","silver"]',
    });
    expect(screen.getByRole('list', { name: /Values: 2 entered/ })).toBeInTheDocument();
    expect(screen.getByLabelText('Description')).toHaveValue('note');
    cleanup();
    setup({
      ...base,
      type: 'DATETIME_COMPARISON_TYPE',
      property: 'signup',
      operator: 'lt',
      value: '2024-01-02T03:04:05Z',
    });
    const local = screen.getByLabelText(/Date and time/) as HTMLInputElement;
    expect(new Date(local.value).toISOString()).toBe('2024-01-02T03:04:05.000Z');
    cleanup();
    setup({ ...base, type: 'DATETIME_COMPARISON_TYPE', property: 'signup', operator: 'lt', value: '2024-01-02' });
    expect(screen.getByLabelText('Date')).toHaveValue('2024-01-02');
  });

  it('shows a server error next to the field it is about, and other errors under the form', async () => {
    const onSave = vi
      .fn<(input: ConstraintInput) => Promise<unknown>>()
      .mockRejectedValueOnce(
        new ApiError(400, {
          code: 3,
          message: 'constraint operator "prefix" is not valid for type string',
          details: [],
        }),
      )
      .mockRejectedValueOnce(new ApiError(404, { code: 5, message: 'segment "default/s" not found', details: [] }));
    const { user } = setup(undefined, onSave);
    await user.type(screen.getByLabelText(/Property/), 'email');
    await user.type(screen.getByLabelText('Value'), 'x');
    await user.click(save());
    const operator = screen.getByLabelText('Operator');
    const message = await screen.findByText('constraint operator "prefix" is not valid for type string');
    expect(operator).toHaveAttribute('aria-describedby', expect.stringContaining(message.id));
    await user.click(save());
    expect(await screen.findByText(/segment "default\/s" not found/)).toHaveClass('error-note');
  });
});
