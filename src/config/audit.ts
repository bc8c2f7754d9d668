// Checks of the `audit` section that its schema cannot say, as Flipt checks them at start: a webhook
// needs a url or templates (not both), the buffer's capacity and flush period stay in Flipt's ranges,
// `events` are known `type:action` pairs. Sinks Flipt has and Vexil does not build (kafka, cloud) are
// refused by name when enabled rather than silently ignored. Template bodies are parsed when the sinks
// are built (features/audit), since parsing them needs the template module.

import { parseDuration } from './duration.js';
import type { Config } from './schema.js';

/** Flipt's event nouns and verbs (internal/server/audit/checker.go); `*` stands for each of them. */
export const AUDIT_EVENT_TYPES = [
  'constraint',
  'distribution',
  'flag',
  'namespace',
  'rollout',
  'rule',
  'segment',
  'token',
  'variant',
  /** Vexil's own: role bindings stored through the API (issue 41); `*` selects it too. */
  'role_binding',
] as const;
export const AUDIT_EVENT_ACTIONS = ['created', 'deleted', 'updated'] as const;

/** The `type:action` pairs `events` selects, or the reason the list is not valid. */
export function auditEventPairs(events: readonly string[]): { pairs: Set<string> } | { error: string } {
  const pairs = new Set<string>();
  for (const event of events) {
    const [noun, verb, ...rest] = event.split(':');
    if (verb === undefined || rest.length > 0) return { error: `"${event}" is not a type:action pair` };
    const nouns = noun === '*' ? AUDIT_EVENT_TYPES : AUDIT_EVENT_TYPES.filter((t) => t === noun);
    const verbs = verb === '*' ? AUDIT_EVENT_ACTIONS : AUDIT_EVENT_ACTIONS.filter((a) => a === verb);
    if (nouns.length === 0)
      return { error: `"${noun}" in "${event}" is not one of ${AUDIT_EVENT_TYPES.join(', ')}, *` };
    if (verbs.length === 0)
      return { error: `"${verb}" in "${event}" is not one of ${AUDIT_EVENT_ACTIONS.join(', ')}, *` };
    for (const n of nouns) for (const v of verbs) pairs.add(`${n}:${v}`);
  }
  if (pairs.size === 0) return { error: 'no event selected' };
  return { pairs };
}

function enabled(section: Record<string, unknown> | undefined): boolean {
  const value = section?.enabled;
  return value === true || value === 'true';
}

/** The first problem of the audit section as one line (without the `invalid config at` prefix), if any. */
export function auditConfigProblem(audit: Config['audit']): string | undefined {
  for (const sink of ['kafka', 'cloud'] as const) {
    if (enabled(audit.sinks[sink])) {
      return `audit.sinks.${sink}: the ${sink} sink is not available in Vexil (use audit.sinks.webhook or audit.sinks.log)`;
    }
  }
  const webhook = audit.sinks.webhook;
  if (webhook.enabled) {
    if (webhook.url === '' && webhook.templates.length === 0) {
      return 'audit.sinks.webhook: url or template(s) not provided';
    }
    if (webhook.url !== '' && webhook.templates.length > 0) {
      return 'audit.sinks.webhook: only one of url or template(s) allowed';
    }
    for (const [i, url] of [webhook.url, ...webhook.templates.map((t) => t.url)].entries()) {
      if (url === '') continue;
      const where = webhook.url !== '' ? 'audit.sinks.webhook.url' : `audit.sinks.webhook.templates[${i - 1}].url`;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return `${where}: "${url}" is not a URL`;
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        return `${where}: "${url}" is not an http(s) URL`;
    }
  }
  const { capacity, flush_period } = audit.buffer;
  if (capacity < 2 || capacity > 10) return `audit.buffer.capacity: ${capacity} is below 2 or above 10`;
  const flushMs = parseDuration(flush_period);
  if (flushMs !== undefined && (flushMs < 120_000 || flushMs > 300_000)) {
    return `audit.buffer.flush_period: "${flush_period}" is below 2 minutes or greater than 5 minutes`;
  }
  const events = auditEventPairs(audit.events);
  if ('error' in events) return `audit.events: ${events.error}`;
  return undefined;
}
