// @vitest-environment jsdom
// The details form follows a flag refetched with someone else's change while nobody edits it (and
// then has nothing unsaved); once the operator has begun editing, their text stays.

import '@testing-library/jest-dom/vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Flag } from '../../api/types.js';
import { navigate } from '../../lib/router.js';
import { FlagDetailsForm } from './flag-details-form.js';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const stamps = { createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z' };
const version = (name: string, description: string): Flag => ({
  key: 'f',
  name,
  description,
  enabled: true,
  type: 'BOOLEAN_FLAG_TYPE',
  variants: [],
  namespaceKey: 'default',
  ...stamps,
});

function setup(flag: Flag) {
  const client = new QueryClient();
  const ui = (f: Flag) => (
    <QueryClientProvider client={client}>
      <FlagDetailsForm flag={f} />
    </QueryClientProvider>
  );
  const view = render(ui(flag));
  return { rerender: (f: Flag) => view.rerender(ui(f)) };
}

/** Whether leaving the page would ask about unsaved changes (the question is answered "stay"). */
function leavingAsks(): boolean {
  const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false);
  vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
  navigate(window.location.pathname === '/elsewhere' ? '/other' : '/elsewhere');
  return confirm.mock.calls.length > 0;
}

describe('FlagDetailsForm', () => {
  it('shows a refetched flag while untouched, with nothing left unsaved', () => {
    const { rerender } = setup(version('Old', 'old text'));
    rerender(version('New', 'new text'));
    expect(screen.getByLabelText(/^Name/)).toHaveValue('New');
    expect(screen.getByLabelText(/^Description/)).toHaveValue('new text');
    expect(leavingAsks()).toBe(false);
  });

  it("keeps the operator's edits when the flag is refetched changed", async () => {
    const { rerender } = setup(version('Old', 'old text'));
    await userEvent.type(screen.getByLabelText(/^Description/), ' and mine');
    rerender(version('New', 'new text'));
    expect(screen.getByLabelText(/^Name/)).toHaveValue('Old');
    expect(screen.getByLabelText(/^Description/)).toHaveValue('old text and mine');
    expect(leavingAsks()).toBe(true);
  });
});
