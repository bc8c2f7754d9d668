// The answer of one evaluation: the value, the reason in words, the matched segments, and the
// explanation when the server gave one.

import { reasonLabel } from '../../lib/format.js';
import { prettyJson } from '../../lib/json.js';
import { ExplainView } from './explain-view.js';
import { type EvaluationOutcome, evaluationSummary } from './summary.js';

const REASON_TEXT: Record<string, string> = {
  MATCH_EVALUATION_REASON: 'A rule or rollout matched this entity.',
  DEFAULT_EVALUATION_REASON: 'Nothing matched, so the default applies.',
  FLAG_DISABLED_EVALUATION_REASON: 'The flag is disabled.',
  UNKNOWN_EVALUATION_REASON: 'No rule matched and there is no default variant.',
};

export function EvaluationResult({ outcome, entityId = '' }: { outcome: EvaluationOutcome; entityId?: string }) {
  const r = outcome.result;
  return (
    <section className="card result" aria-labelledby="result-title" aria-live="polite">
      <h2 id="result-title">Result</h2>
      <p className="result-summary" data-testid="evaluation-summary">
        {evaluationSummary(outcome, entityId)}
      </p>
      <div className="result-value" data-testid="evaluation-value">
        {outcome.kind === 'boolean' ? (
          <span className={`big-value ${outcome.result.enabled ? 'status-on' : 'status-off'}`}>
            {String(outcome.result.enabled)}
          </span>
        ) : outcome.result.variantKey ? (
          <span className="big-value">{outcome.result.variantKey}</span>
        ) : (
          <span className="big-value muted">no variant</span>
        )}
      </div>
      <dl className="facts">
        <div>
          <dt>Reason</dt>
          <dd data-testid="evaluation-reason">
            {reasonLabel(r.reason)} <span className="muted">({r.reason})</span>
            <br />
            <span className="muted">{REASON_TEXT[r.reason] ?? ''}</span>
          </dd>
        </div>
        {outcome.kind === 'variant' ? (
          <div>
            <dt>Match</dt>
            <dd>{outcome.result.match ? 'yes' : 'no'}</dd>
          </div>
        ) : null}
        <div>
          <dt>Segments</dt>
          <dd data-testid="evaluation-segments">
            {r.segmentKeys?.length ? (
              r.segmentKeys.map((k) => (
                <code key={k} className="chip">
                  {k}
                </code>
              ))
            ) : (
              <span className="muted">none</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Request</dt>
          <dd>
            <code>{r.requestId}</code> ·{' '}
            {typeof r.requestDurationMillis === 'number' ? `${r.requestDurationMillis.toFixed(2)} ms` : ''}
          </dd>
        </div>
      </dl>
      {outcome.kind === 'variant' && outcome.result.variantAttachment ? (
        <>
          <h3>Attachment</h3>
          <pre className="code">{prettyJson(outcome.result.variantAttachment)}</pre>
        </>
      ) : null}
      {r.explain !== undefined ? (
        <ExplainView explain={r.explain} kind={outcome.kind} />
      ) : (
        <p className="muted">The server sent no explanation for this evaluation.</p>
      )}
    </section>
  );
}
