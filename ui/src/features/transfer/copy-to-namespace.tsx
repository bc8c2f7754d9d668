// "Copy to namespace…" on a flag or a segment page: the source namespace's export, cut down to that
// flag (variants, rules, rollouts) or segment (constraints), imported into the chosen namespace
// through the server's one-transaction import, previewed first as a dry run. What cannot come along
// (a rule whose segment the target lacks, when segments are not copied too) is listed before
// anything is written.

import { useId, useState } from 'react';
import * as api from '../../api/api.js';
import { useNamespaces } from '../../api/queries.js';
import { useNotify } from '../../components/notices.js';
import { useModalDialog } from '../../components/use-modal-dialog.js';
import { Link, paths } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { PreviewFooter, usePreviewedImport } from '../namespaces/namespace-transfer.js';
import { type CopyPlan, parseExport, planCopy } from './copy-document.js';

interface CopyProps {
  kind: 'flag' | 'segment';
  ns: string;
  itemKey: string;
}

function CopyPanel({ kind, ns, itemKey, onClose }: CopyProps & { onClose: () => void }) {
  const id = useId();
  const notify = useNotify();
  const namespaces = useNamespaces();
  const targets = (namespaces.data ?? []).filter((n) => n.key !== ns);
  const [target, setTarget] = useState('');
  const [withSegments, setWithSegments] = useState(true);
  const [plan, setPlan] = useState<CopyPlan | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const chosen = target || targets[0]?.key || '';

  const { preview, error, busy, run, reset } = usePreviewedImport(
    async () => {
      const [exported, targetSegments] = await Promise.all([
        api.exportNamespace(ns, 'json'),
        api.listAllSegments(chosen),
      ]);
      const next = planCopy(parseExport(exported), {
        kind,
        key: itemKey,
        target: chosen,
        targetSegments: new Set(targetSegments.map((s) => s.key)),
        withSegments,
      });
      setPlan(next);
      return { text: next.text, contentType: 'application/json', namespaceKey: chosen };
    },
    {},
    () => {
      notify(`${kind === 'flag' ? 'Flag' : 'Segment'} "${itemKey}" copied to "${chosen}"`);
      setCopied(chosen);
    },
  );
  const change = (fn: () => void) => {
    fn();
    setPlan(null);
    reset();
  };

  if (copied) {
    return (
      <section className="card" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>Copied</h2>
        <p>
          {kind === 'flag' ? 'Flag' : 'Segment'} <code>{itemKey}</code> is now in namespace <code>{copied}</code>
          {plan?.leftOut.length ? ', without what is listed below' : ''}.{' '}
          <Link to={kind === 'flag' ? paths.flag(copied, itemKey) : paths.segment(copied, itemKey)}>Open the copy</Link>
        </p>
        {plan ? <PlanReport plan={plan} /> : null}
        <div className="actions">
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
        </div>
      </section>
    );
  }

  return (
    <section className="card form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Copy {kind} {itemKey} to another namespace
      </h2>
      {namespaces.data && targets.length === 0 ? (
        <p className="warning">There is no other namespace. Create one under Namespaces first.</p>
      ) : null}
      <div className="field">
        <label htmlFor={`${id}-target`}>Target namespace</label>
        <select id={`${id}-target`} value={chosen} onChange={(e) => change(() => setTarget(e.target.value))}>
          {targets.map((n) => (
            <option key={n.key} value={n.key}>
              {n.name === n.key ? n.key : `${n.name} (${n.key})`}
            </option>
          ))}
        </select>
      </div>
      {kind === 'flag' ? (
        <label className="check">
          <input
            type="checkbox"
            checked={withSegments}
            onChange={(e) => change(() => setWithSegments(e.target.checked))}
          />
          Also copy the segments its rules and rollouts use that the target namespace does not have
        </label>
      ) : null}
      {plan && preview ? <PlanReport plan={plan} /> : null}
      <PreviewFooter preview={preview} error={error} onClose={onClose}>
        {preview ? (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => run(false)}>
            {busy ? 'Copying…' : 'Copy'}
          </button>
        ) : (
          <button type="button" className="btn btn-primary" disabled={busy || !chosen} onClick={() => run(true)}>
            {busy ? 'Checking…' : 'Preview'}
          </button>
        )}
      </PreviewFooter>
    </section>
  );
}

function PlanReport({ plan }: { plan: CopyPlan }) {
  return (
    <div className="copy-report">
      {plan.segmentsAdded.length ? (
        <p>
          Segments copied along:{' '}
          {plan.segmentsAdded.map((k) => (
            <code key={k} className="key">
              {k}
            </code>
          ))}
        </p>
      ) : null}
      {plan.leftOut.length ? (
        <div className="warning" role="alert">
          <p>Cannot be copied:</p>
          <ul>
            {plan.leftOut.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** The header button and, once pressed, the copy panel (not for namespace-scoped tokens). */
export function CopyToNamespace(props: CopyProps) {
  const { scope } = useAuth();
  const [open, setOpen] = useState(false);
  if (scope) return null;
  return (
    <>
      <button type="button" className="btn" onClick={() => setOpen(true)} aria-expanded={open}>
        Copy to namespace…
      </button>
      {open ? <CopyDialog {...props} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

/** The panel in a modal dialog, so it fits any page header (focus kept inside, Escape closes). */
function CopyDialog(props: CopyProps & { onClose: () => void }) {
  const { ref, close } = useModalDialog(true, props.onClose);
  return (
    <dialog
      ref={ref}
      className="dialog dialog-wide"
      aria-label={`Copy ${props.kind} ${props.itemKey}`}
      onClose={props.onClose}
    >
      <CopyPanel {...props} onClose={close} />
    </dialog>
  );
}
