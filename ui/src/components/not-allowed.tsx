// How a page says what the caller may not do there (issue 41): a short note with the reason, and a
// fieldset that keeps a form readable but switched off.

import type { ReactNode } from 'react';
import { PageHeader } from './page-header.js';

/** The reason an action is not offered, said once where the action would be. */
export function NotAllowedNote({ reason }: { reason: string | undefined }) {
  if (!reason) return null;
  return (
    <p className="not-allowed" role="note">
      {reason}
    </p>
  );
}

/** Its controls off (and the reason as their tooltip) when `reason` is set; as it is otherwise. */
export function ReadOnlyWhen({ reason, children }: { reason: string | undefined; children: ReactNode }) {
  if (!reason) return <>{children}</>;
  return (
    <fieldset className="read-only-fieldset" disabled title={reason}>
      {children}
    </fieldset>
  );
}

/** A page the caller may not open: its heading, and what it needs instead. */
export function NotAllowedPage({ title, reason, children }: { title: string; reason: string; children?: ReactNode }) {
  return (
    <>
      <PageHeader title={title} />
      <div className="empty-state not-allowed-page">
        <p className="empty-title">Not available to you</p>
        <div className="empty-body">
          <p>{reason}</p>
          {children}
        </div>
      </div>
    </>
  );
}
