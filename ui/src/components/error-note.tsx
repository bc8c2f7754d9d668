// Shows an API or validation error where the action happened; never silent.

import { ApiError } from '../api/client.js';

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorNote({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const status = error instanceof ApiError && error.status ? ` (HTTP ${error.status})` : '';
  return (
    <p className="error-note" role="alert" id={id}>
      {errorMessage(error)}
      <span className="error-status">{status}</span>
    </p>
  );
}

/** The API error meant for `field` (Flipt's `invalid field <field>: …`), or undefined. */
export function fieldError(error: unknown, ...fields: string[]): string | undefined {
  if (error instanceof ApiError && error.field && fields.includes(error.field)) return error.message;
  return undefined;
}

/** The API error unless it belongs to one of `fields` (then the field shows it). */
export function formError(error: unknown, ...fields: string[]): unknown {
  return fieldError(error, ...fields) ? undefined : error;
}
