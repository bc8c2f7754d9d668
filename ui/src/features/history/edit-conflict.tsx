// Unsaved edits meet someone else's change (issue 42): a form keeps the object its edits started from
// and sends the revision that object was read at as its save's precondition (If-Match), so the server
// refuses to overwrite a newer change (412). When the page learns of such a change (pushed, or from a
// refused save) while the form holds edits, it says who changed it and when, and offers to reload
// theirs, keep mine (save over it, knowingly) or compare the two side by side. Untouched forms just
// take the new values in.

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { ApiError, revisionOf } from '../../api/client.js';
import { DateTime } from '../../components/date-time.js';
import { actorLabel } from './describe.js';
import { type HistoryScope, historyKeys, listChanges } from './history-api.js';

/** The fields a form shows, as label and text: what is compared and what "Compare" lists. */
export type FieldRows = readonly (readonly [string, string])[];

export interface EditConflictOptions<T> {
  /** The object as the page holds it now (refetched when someone changes it). */
  current: T | undefined;
  /** The form's fields of an object. */
  rows: (value: T) => FieldRows;
  /** The form's fields as edited. */
  mine: FieldRows;
  /** Puts an object's values into the form. */
  onReload: (value: T) => void;
  /** Where the object's changes are listed (who changed it, when). */
  scope: HistoryScope;
}

export interface EditConflict<T> {
  /** The precondition for the next save. */
  ifMatch: string | undefined;
  /** Call with a failed save's error; true when it was a refused precondition (the notice shows). */
  refused(error: unknown): boolean;
  /** The notice, or null. */
  notice: ReactNode;
  /** Someone else's version, while it conflicts with the form's edits. */
  theirs: T | undefined;
}

const text = (rows: FieldRows) => JSON.stringify(rows);

export function useEditConflict<T extends object>(options: EditConflictOptions<T>): EditConflict<T> {
  const { current, rows, mine, onReload, scope } = options;
  const queryClient = useQueryClient();
  const [base, setBase] = useState(current);
  const [refusal, setRefusal] = useState<string | null>(null);
  const mineText = text(mine);

  if (current !== undefined && current !== base) {
    const theirsText = text(rows(current));
    const baseText = base === undefined ? theirsText : text(rows(base));
    const dirty = mineText !== baseText;
    if (theirsText === baseText || theirsText === mineText) setBase(current);
    else if (!dirty) {
      onReload(current);
      setBase(current);
    }
  }
  const theirs =
    current !== undefined &&
    base !== undefined &&
    current !== base &&
    text(rows(current)) !== text(rows(base)) &&
    text(rows(current)) !== mineText
      ? current
      : undefined;

  const reload = () => {
    if (current !== undefined) onReload(current);
    setBase(current);
    setRefusal(null);
  };
  const keepMine = () => {
    setBase(current);
    setRefusal(null);
  };
  const refused = (error: unknown) => {
    if (!(error instanceof ApiError && error.status === 412)) return false;
    setRefusal(error.message);
    void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[1] === scope.ns });
    return true;
  };

  const notice =
    theirs !== undefined || refusal !== null ? (
      <ConflictNotice
        scope={scope}
        revision={revisionOf(current)}
        refusal={refusal}
        theirs={theirs === undefined ? undefined : rows(theirs)}
        mine={mine}
        onReload={reload}
        onKeepMine={keepMine}
      />
    ) : null;
  return { ifMatch: revisionOf(base), refused, notice, theirs };
}

function ConflictNotice(props: {
  scope: HistoryScope;
  revision: string | undefined;
  refusal: string | null;
  theirs: FieldRows | undefined;
  mine: FieldRows;
  onReload(): void;
  onKeepMine(): void;
}) {
  const [comparing, setComparing] = useState(false);
  // The newest change of the flag or segment: who made the change the form just learned of.
  const latest = useQuery({
    queryKey: [...historyKeys.list(props.scope), 'latest', props.revision ?? ''],
    queryFn: ({ signal }) => listChanges(props.scope, undefined, signal),
    select: (list) => list.changes[0],
  });
  const change = latest.data;
  return (
    <div className="conflict-note" role="alert">
      <p>
        {change ? (
          <>
            <strong>
              Changed by {actorLabel(change.actor)} at <DateTime iso={change.createdAt} />
            </strong>{' '}
            while you were editing.
          </>
        ) : (
          <strong>Changed by someone else while you were editing.</strong>
        )}{' '}
        {props.refusal ? 'Your save was not applied, so nothing was overwritten.' : 'Your edits are not saved yet.'}
      </p>
      <div className="actions">
        <button type="button" className="btn" onClick={props.onReload}>
          Reload theirs
        </button>
        <button type="button" className="btn" onClick={props.onKeepMine}>
          Keep mine
        </button>
        <button type="button" className="btn" aria-expanded={comparing} onClick={() => setComparing(!comparing)}>
          Compare
        </button>
      </div>
      {comparing ? (
        <table className="conflict-compare">
          <caption className="sr-only">Their version and yours</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Theirs</th>
              <th scope="col">Yours</th>
            </tr>
          </thead>
          <tbody>
            {props.mine.map(([label, value], i) => {
              const other = props.theirs?.[i]?.[1] ?? '';
              return (
                <tr key={label} className={other !== value ? 'differs' : undefined}>
                  <th scope="row">{label}</th>
                  <td>{props.theirs ? other : '(reloading…)'}</td>
                  <td>{value}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
